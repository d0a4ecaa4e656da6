"""Starts Orca exactly as `/usr/bin/orca` does, but alongside the Orca of another test desktop.

Orca's launcher refuses to start while any other process named `orca` runs as the same user ("Another screen reader
process is already running for this session"), and `--replace` kills every one of them. Each test desktop has its
own display, session bus, accessibility bus, home and settings, so two of them do not share anything that check
protects; the screen-reader files run side by side. Everything else is Orca's own code, run unchanged.
"""
import runpy
import sys

if __name__ == "__main__":
    sys.argv[0] = "/usr/bin/orca"
    main = runpy.run_path("/usr/bin/orca", run_name="orca_launcher")["main"]
    # `main` looks `otherOrcas` up in the namespace it was defined in (run_path returns only a copy of it).
    main.__globals__["otherOrcas"] = lambda: []
    sys.exit(main())
