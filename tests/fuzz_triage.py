"""Triage of the differential fuzzer: run many programs against PyTorch, group the differences by kind,
shrink one program per kind to a few lines, print them as PyTorch code with both outcomes.

    python tests/fuzz_triage.py --backend numpy --programs 3000 [--seed 1] [--family ops]

Shrinking removes statements and reads (and ``with torch.no_grad():``, and terms of the loss) as long as
the program still shows the same kind of difference: hypothesis' own shrinker works on the draws and
keeps many unneeded lines of a program.
"""
import argparse
import re
import sys
import warnings

import torch
from hypothesis import HealthCheck, given, seed, settings

import xtensor
from fuzz_programs import FAMILIES, KNOWN_DIVERGENCES, first_difference, program_source, run


def outcomes(program, backend):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = run(torch, program)
    with xtensor.use_backend(backend):
        actual = run(xtensor, program)
    return expected, actual


def kind_of(expected, actual, loose=False):
    """A difference's kind, e.g. ``grad_fn: UnsqueezeBackward0 vs SliceBackward0``; None if none."""
    text = first_difference(expected, actual, loose)
    if text is None:
        return None
    where = "w.grad" if "`w.grad`" in text.split(":")[0] else "read"
    text = re.sub(r"\d+", "N", text.split("`", 2)[-1])
    if "values:" in text:
        return f"values of {where}"
    if "expected a read; got" in text or "expected RuntimeError" in text or "Error" in text:
        messages = re.findall(r"(\w+Error: [^;\n]{0,60}|a read)", text)
        return " vs ".join(messages[:2]) or text[:100]
    return text[:120]


def shrink(program, backend, kind, loose=False):
    """Delta debugging over lines: drop what is not needed to show ``kind``."""
    def same(candidate):
        try:
            return kind_of(*outcomes(candidate, backend), loose) == kind
        except Exception:  # noqa: BLE001 -- a broken candidate is simply not kept
            return False

    program = list(program)
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(program))):
            if i >= len(program):
                continue
            step_kind, source = program[i]
            candidates = [program[:i] + program[i + 1:]]
            if source.startswith("with torch.no_grad(): "):
                candidates.append(program[:i] + [(step_kind, source[len("with torch.no_grad(): "):])] + program[i + 1:])
            if source.startswith("loss = ") and " + " in source:
                terms = source[len("loss = "):].split(" + ")
                candidates += [program[:i] + [(step_kind, "loss = " + " + ".join(terms[:j] + terms[j + 1:]))]
                               + program[i + 1:] for j in range(len(terms))]
            for candidate in candidates:
                if same(candidate):
                    program, changed = candidate, True
                    break
    return tuple(program)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--family", choices=sorted(FAMILIES), default="views",
                        help="programs of views and in-place writes, or of many ops (op_programs)")
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--examples", type=int, default=3, help="programs shrunk per kind (the shortest kept)")
    args = parser.parse_args()
    strategy, loose = FAMILIES[args.family]
    found = {}
    total = [0, 0]

    @settings(max_examples=args.programs, deadline=None, database=None, phases=["generate"],
              suppress_health_check=list(HealthCheck))
    @seed(args.seed)
    @given(strategy())
    def collect(program):
        expected, actual = outcomes(program, args.backend)
        total[0] += 1
        kind = kind_of(expected, actual, loose)
        if kind:
            total[1] += 1
            found.setdefault(kind, []).append(program)

    collect()
    print(f"# {args.backend}: {total[1]} of {total[0]} programs differ; {len(found)} kinds")
    print("# known and not drawn: " + "; ".join(f"{name} ({why})" for name, why in KNOWN_DIVERGENCES.items()) + "\n")
    for kind, failing in sorted(found.items(), key=lambda item: -len(item[1])):
        shrunk = min((shrink(p, args.backend, kind, loose) for p in sorted(failing, key=len)[:args.examples]), key=len)
        expected, actual = outcomes(shrunk, args.backend)
        print(f"## [{len(failing)}] {kind}\n")
        print(program_source(shrunk).split("\n\n", 1)[1])
        print(f"# -> {first_difference(expected, actual, loose)}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
