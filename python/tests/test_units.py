"""The helper's pure parts: data position, the job file, plans, torchrun's arguments."""
from __future__ import annotations

import pytest
import torch

from gaptrain.jobfile import JobView, LaunchContext, LaunchContextError
from gaptrain.positions import DataPosition, epoch_order, share_of
from gaptrain.store import Plan
from gaptrain.torchrun import torchrun_arguments


def test_a_global_batch_is_dealt_out_whole_at_any_world_size() -> None:
    order = epoch_order(10, seed=1, epoch=0)
    for world in (1, 2, 3, 4):
        shares = [share_of(order, 4, 2, rank, world) for rank in range(world)]
        dealt = sorted(i for share, _ in shares for i in share.indices if share.weight)
        window = sorted(order[4:4 + 2 * world].tolist())
        assert dealt == window
        assert all(total == len(window) for _, total in shares)


def test_the_epochs_last_batch_gives_stand_ins_weight_zero() -> None:
    order = epoch_order(5, seed=0, epoch=2)
    share, total = share_of(order, 4, 2, rank=3, world_size=4)  # one sample left, four ranks
    assert total == 1 and share.weight == 0 and len(share.indices) == 1
    first, _ = share_of(order, 4, 2, rank=0, world_size=4)
    assert first.weight == 1 and first.indices == [order[4].item()]


def test_the_order_depends_on_seed_and_epoch_only() -> None:
    assert torch.equal(epoch_order(50, 3, 1), epoch_order(50, 3, 1))
    assert not torch.equal(epoch_order(50, 3, 1), epoch_order(50, 3, 2))


def test_a_position_round_trips() -> None:
    p = DataPosition(epoch=2, offset=96, samples_done=3690, step=120)
    assert DataPosition.from_dict(p.as_dict()) == p


def test_the_job_file_is_read_strictly() -> None:
    view = JobView.parse('{"job_id": 5, "generation": 2, "nodes": ["n1", "n2"], "leaving": ["n3"],'
                         ' "notice": {"n2": 17.5}, "min_nodes": 1, "max_nodes": 4}')
    assert view.nodes == ("n1", "n2") and view.leaving == ("n3",) and view.notice == {"n2": 17.5}
    for bad in ('[]', '{"job_id": 5, "generation": 1, "nodes": []}',
                '{"job_id": 5, "generation": 1, "nodes": ["n1"], "notice": []}'):
        with pytest.raises(ValueError):
            JobView.parse(bad)


def test_plans_round_trip_and_name_ranks() -> None:
    plan = Plan(3, (("n1", 1), ("n4", 2)))
    back = Plan.from_json(plan.to_json())
    assert back == plan
    assert back.rank_of("n4", 2) == 1
    assert back.rank_of("n4", 1) is None  # an earlier process on n4 is not this one


def test_outside_a_job_the_helper_says_how_to_run() -> None:
    with pytest.raises(LaunchContextError, match="gaptrain submit"):
        LaunchContext.from_env({})


def test_torchrun_gets_the_jobs_range_and_rendezvous() -> None:
    env = {"GAPTRAIN_MASTER_ADDR": "n1", "GAPTRAIN_JOB_ID": "42", "SLURMD_NODENAME": "n3",
           "GAPTRAIN_RDZV_HOST": "10.1.0.1", "GAPTRAIN_RDZV_PORT": "41000",
           "GAPTRAIN_MIN_NODES": "2", "GAPTRAIN_MAX_NODES": "8"}
    args = torchrun_arguments(LaunchContext.from_env(env), ["train.py", "--epochs", "3"], env)
    assert "--nnodes=2:8" in args
    assert "--rdzv_endpoint=10.1.0.1:41000" in args
    assert "--rdzv_id=42" in args
    assert "--rdzv_conf=is_host=0,last_call_timeout=5" in args
    assert args[-3:] == ["train.py", "--epochs", "3"]
