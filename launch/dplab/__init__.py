"""dplab's run contract, written once.

The front ends (run.py, matrix.py, report.py, scenarios-doc.py, collect.py,
slurm_engine.py) and the shell tests import these instead of keeping their
own copies, which had started to disagree:

  contract  the mode, kernel, LRU and variant lists, the cell name, the
            build-path rule, the lab checkout's commit
  checks    the only check evaluator: a check line against a run's metrics,
            the per-check status rule, a run's and a cell's verdict, the
            test line (PASS/XFAIL/SKIP/FAIL) for tests/run and matrix.ktap
  console   console.log triage: problem lines less what the kernel prints
            on purpose (OOM reports, a requested crash, KCSAN elsewhere)
  files     reading a run's OUT: text, JSON, job.env, run.py's records
  records   dataclasses: Topology (Node, Disk, Hmat) and Scenario
            (CheckSpec), what topology.load() and scenario.load() return
            and the front ends read by field; Result, Check and Cell over
            result.json and cell.json, whose to_dict() is exactly the JSON

launch/ is on sys.path for every front end (they insert their own
directory), so `import dplab` works from them and `python3 -m dplab.checks`
from launch/.
"""
