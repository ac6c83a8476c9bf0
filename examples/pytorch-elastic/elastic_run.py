#!/usr/bin/env python3
"""torchrun (python3 -m torch.distributed.run) made fit for nodes that come and go.

Takes torchrun's arguments and runs torchrun's main after torch_compat's fixes for the torch
at hand: no libuv stores where torch lacks libuv, an agent stopped by a signal (a node gaptrain
gives back) leaves the rendezvous open for the others, and the workers get a store of their own
each round (torch_compat.py says why).
"""
import sys

import torch_compat


def main():
    torch_compat.stores_without_libuv_if_missing()
    torch_compat.keep_rendezvous_open_on_signal()
    torch_compat.one_worker_store_per_round()
    from torch.distributed.run import main as torchrun_main

    sys.argv[0] = "torchrun"
    torchrun_main()


if __name__ == "__main__":
    main()
