"""The package under test is the one beside these tests (python/gaptrain), not an installed one."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
