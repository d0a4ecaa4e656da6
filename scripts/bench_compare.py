"""Prints Varsel beside the durable peer from varsel-bench's --summary files: ranges over the runs, and ratios.

Usage: python3 scripts/bench_compare.py DIRECTORY, where DIRECTORY holds TARGET-SUBSCRIBERS-RUN.json files.
"""
import json
import statistics
import sys
from pathlib import Path

FIGURES = [("p50Ms", "p50", "ms"), ("p99Ms", "p99", "ms"), ("cpuMsPerNotification", "CPU per notification", "ms"),
           ("kibPerStream", "per idle stream", "KiB")]
NAMES = {"varsel": "Varsel (SQLite)", "nchan": "nginx + nchan on Redis (fsync per write)"}


def main(directory: Path) -> None:
    runs: dict[tuple[int, str], list[dict]] = {}
    for path in sorted(directory.glob("*.json")):
        summary = json.loads(path.read_text())
        runs.setdefault((summary["subscribers"], summary["target"]), []).append(summary)
    for subscribers in sorted({key[0] for key in runs}):
        targets = [target for target in NAMES if (subscribers, target) in runs]
        count = len(runs[(subscribers, targets[0])])
        print(f"\n{subscribers:,} streams, {runs[(subscribers, targets[0])][0]['rate']:,}/s: ranges over {count} runs each")
        print("| | " + " | ".join(label for _, label, _ in FIGURES) + " | delivered | load | waiting for the disk |")
        print("|---" * (len(FIGURES) + 4) + "|")
        for target in targets:
            rows = runs[(subscribers, target)]
            cells = [span([row[key] for row in rows], unit) for key, _, unit in FIGURES]
            delivered = span([row["delivered"] / row["total"] * 100 for row in rows], "%", digits=0)
            load = span([float(row["load"]) for row in rows], "", digits=1)
            waiting = span([row["ioWaitPercent"] for row in rows], "%", digits=0)
            print(f"| {NAMES[target]} | " + " | ".join(cells) + f" | {delivered} | {load} | {waiting} |")
        if len(targets) == 2:
            ratios = []
            for key, label, _ in FIGURES:
                mine = statistics.median(row[key] for row in runs[(subscribers, "varsel")])
                theirs = statistics.median(row[key] for row in runs[(subscribers, "nchan")])
                ratios.append(f"{label} {mine / theirs:.1f}×" if theirs > 0 else f"{label} –")
            print("Varsel ÷ peer (medians): " + ", ".join(ratios))


def span(values: list[float], unit: str, digits: int = 2) -> str:
    low, high = min(values), max(values)
    text = f"{low:.{digits}f}" if round(low, digits) == round(high, digits) else f"{low:.{digits}f}–{high:.{digits}f}"
    return f"{text} {unit}".strip()


if __name__ == "__main__":
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_dir():
        print("Usage: python3 scripts/bench_compare.py DIRECTORY (the --summary files of varsel-bench's runs).", file=sys.stderr)
        sys.exit(1)
    main(Path(sys.argv[1]))
