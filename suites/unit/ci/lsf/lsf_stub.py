"""Stand-ins for LSF's bsub, bjobs and bkill (no LSF runs here), for the launcher's tests: installed as those
three names in a folder put first on PATH, they keep their jobs under $FAKE_LSF_DIR.

    bsub -J 'name[1-3]' -o logs/shard-%I.log ... SCRIPT   records its arguments (calls.jsonl), answers
                                                          "Job <N> is submitted to queue <normal>." and starts
                                                          every element in the background with LSB_JOBID and
                                                          LSB_JOBINDEX set
    bjobs -noheader -a -o '...' JOB                       jobindex|stat|exec_host|exit_reason per element
    bkill JOB                                             ends the elements still running (TERM_OWNER)
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

HOME = Path(os.environ.get("FAKE_LSF_DIR", "/tmp/fake-lsf"))


def _indices(spec: str) -> list[int]:
    found = []
    for part in spec.split(","):
        start, _, end = part.partition("-")
        found.extend(range(int(start), int(end or start) + 1))
    return found


def bsub(args: list[str]) -> int:
    HOME.mkdir(parents=True, exist_ok=True)
    with open(HOME / "calls.jsonl", "a") as calls:
        calls.write(json.dumps(["bsub", *args]) + "\n")
    name = args[args.index("-J") + 1]
    output = args[args.index("-o") + 1]
    script = args[-1]
    array = re.fullmatch(r"[^\[]*\[([0-9,\-]+)\]", name)
    counter = HOME / "next_job"
    job = int(counter.read_text()) if counter.exists() else 100
    counter.write_text(str(job + 1))
    folder = HOME / "jobs" / str(job)
    folder.mkdir(parents=True)
    for index in _indices(array.group(1)) if array else [0]:
        (folder / f"{index}.state").write_text("PEND||-\n")
        subprocess.Popen([sys.executable, __file__, "__element", str(job), str(index), script,
                          output.replace("%I", str(index)).replace("%J", str(job))], start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"Job <{job}> is submitted to queue <normal>.")
    return 0


def element(job: str, index: str, script: str, log: str) -> int:
    state = HOME / "jobs" / job / f"{index}.state"
    host = socket.gethostname().split(".")[0]
    env = {**os.environ, "LSB_JOBID": job, "LSB_JOBINDEX": index}
    with open(log, "a") as out:
        process = subprocess.Popen([script], env=env, stdout=out, stderr=subprocess.STDOUT)
        state.write_text(f"RUN|{host}|-|{os.getpid()}\n")  # the group bkill ends
        code = process.wait()
    if state.read_text().startswith("RUN"):
        state.write_text(f"DONE|{host}|-\n" if code == 0 else f"EXIT|{host}|TERM_EXIT_{code}\n")
    return 0


def bjobs(args: list[str]) -> int:
    folder = HOME / "jobs" / args[-1]
    if not folder.is_dir():
        print(f"Job <{args[-1]}> is not found", file=sys.stderr)
        return 255
    for state in sorted(folder.glob("*.state"), key=lambda p: int(p.stem)):
        stat, host, reason = state.read_text().strip().split("|")[:3]
        print(f"{state.stem}|{stat}|{host or '-'}|{reason}")
    return 0


def bkill(args: list[str]) -> int:
    for state in (HOME / "jobs" / args[-1]).glob("*.state"):
        fields = state.read_text().strip().split("|")
        if fields[0] == "RUN":
            state.write_text(f"EXIT|{fields[1]}|TERM_OWNER\n")
            try:
                os.killpg(int(fields[3]), signal.SIGTERM)
            except (OSError, IndexError, ValueError):
                pass
        elif fields[0] == "PEND":
            state.write_text("EXIT|-|TERM_OWNER\n")
    print(f"Job <{args[-1]}> is being terminated")
    return 0


def main() -> int:
    if sys.argv[1:2] == ["__element"]:
        return element(*sys.argv[2:6])
    tool = Path(sys.argv[0]).stem
    return {"bsub": bsub, "bjobs": bjobs, "bkill": bkill}[tool](sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
