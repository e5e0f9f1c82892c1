"""Trace mutation: real traces with one mutation applied, played on the golden model in a worker process that can
be killed, looking for what the project's error family does not cover (an exception from outside it, a crash, a
hang, a memory blow-up); suites/tracemutate runs it in CI and nightly.

    mutations.py   Seed, Case and the hypothesis strategies that mutate a seed trace (registers, fields, command
                   arguments, trace text, memory files)
    seeds.py       generated layers as seed traces (every stimulus family of nv_small, nv_large and nv_full)
    harness.py     Fuzzer and its worker: plays cases, counts outcomes, writes a reduced reproducer per finding

Not to be confused with the rule registry's check of `nvdla-verif fuzz` (stimulus/fuzz.py) or the
coverage-directed fuzzing loop of `fuzz --impl` (ci/fuzzing/).
"""
