"""Fuzz the whole HTTP API from its OpenAPI, longer than CI does: `python -m bench.fuzz --examples N`.

Runs tests/fuzz/test_openapi.py through pytest (the same fuzzing, the same real app, Neo4j and
model, tests/conftest.py's session) with UHP_FUZZ_EXAMPLES=N and UHP_FUZZ_COLLECT=1, so a failing
case is counted and the run goes on rather than stopping and shrinking. Then prints one row per
operation: cases run, outcomes by status class, answers whose status the operation does not
document, failures by check; and one example of each failure. Writes bench/results/fuzz.json.

The database is NEO4J_URI (with NEO4J_USER and NEO4J_PASSWORD) or whatever tests/neo4j_target
provisions.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.fuzz.harness import table

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "fuzz.json"
TARGET = "tests/fuzz/test_openapi.py"


def run(examples: int, selection: str | None, strict: bool) -> tuple[int, float]:
    """pytest over the fuzz tests; its exit code and wall time in seconds."""
    env = os.environ | {
        "UHP_FUZZ_EXAMPLES": str(examples),
        "UHP_FUZZ_REPORT": str(RESULTS),
        "UHP_FUZZ_COLLECT": "0" if strict else "1",
    }
    command = [sys.executable, "-m", "pytest", TARGET, "-q", "-p", "no:cacheprovider"]
    if selection:
        command += ["-k", selection]
    RESULTS.unlink(missing_ok=True)
    began = time.perf_counter()
    code = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
    return code, time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz")
    parser.add_argument("--examples", type=int, default=100, help="examples per operation (100)")
    parser.add_argument("-k", dest="selection", help="pytest -k: e.g. 'stateful' or 'records'")
    parser.add_argument(
        "--strict", action="store_true", help="stop an operation at its first failure and shrink it"
    )
    args = parser.parse_args()
    code, seconds = run(args.examples, args.selection, args.strict)
    if not RESULTS.is_file():
        print(f"bench.fuzz: pytest exited {code} and wrote no tally", file=sys.stderr)
        return code or 1
    report = json.loads(RESULTS.read_text(encoding="utf-8"))
    report["_run"] = {"examples": args.examples, "seconds": round(seconds, 1), "pytest_exit": code}
    RESULTS.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(f"\nfuzzing from the OpenAPI: {args.examples} examples per operation, {seconds:.0f} s")
    for line in table(report):
        print(line)
    for name, example in report["_examples"].items():
        print(f"\n=== {name}\n{example}")
    print(f"\nwritten: {RESULTS.relative_to(ROOT)}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
