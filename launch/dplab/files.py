"""Reading what a run left in OUT.  Everything here tolerates a missing or
unreadable file: an old or broken run record is still reported on."""
import json
import os
import shlex


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def read_json(path):
    """The JSON document at path, or None when it is missing or unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def job_env(out):
    """OUT/job.env, what run.py gave the guest, as a dict ({} if absent)."""
    env = {}
    for line in read(os.path.join(out, "job.env")).splitlines():
        k, _, v = line.partition("=")
        try:
            env[k] = " ".join(shlex.split(v)) if v else ""
        except ValueError:
            env[k] = v
    return env


def run_record(out, name):
    """OUT/name, a JSON record run.py wrote at run time, or None when the run
    has none (it is from before run.py wrote it) or it is unreadable."""
    return read_json(os.path.join(out, name))
