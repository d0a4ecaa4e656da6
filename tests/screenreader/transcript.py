"""`varsel transcript --reader web`, the reference the screen-reader suites compare Orca's speech against."""
from __future__ import annotations

import subprocess

from varsel_server import ROOT, varsel_binary

# Orca's own words for what the page exposes; nothing else may differ.
ORCA_WORDS = [
    (", toggle button, pressed", " toggle button pressed"),
    (", toggle button, not pressed", " toggle button not pressed"),
    (", check box, not checked", " check box not checked"),
    (", switch, on", " switch on"),
    (", switch, off", " switch off"),
    (", heading, level 1", " heading level 1"),
    (", group", " panel"),
    (", link", " link"),
    (", tab, ", " page tab. "),
]


# Orca 43's WebKit script reads a switch as a toggle button (WebKitGTK reports the switch role and its checked
# state through AT-SPI; Orca's Chromium and Firefox scripts read the same as "switch on"/"switch off").
ORCA_WEBKIT_WORDS = [
    (", switch, on", " toggle button pressed"),
    (", switch, off", " toggle button not pressed"),
]


def orca_form(transcript_line: str, engine: str = "chromium") -> str:
    """A transcript line as Orca words it on an engine: its role words, and the hint as a separate utterance."""
    phrase = transcript_line.strip()
    for ours, orcas in (ORCA_WEBKIT_WORDS if engine == "webkit" else []) + ORCA_WORDS:
        if ours in phrase:
            phrase = phrase.replace(ours, orcas, 1)
            break
    return phrase


def transcript_section(title: str, locale: str = "en") -> list[str]:
    output = subprocess.run([str(varsel_binary()), "transcript", "--reader", "web", "--locale", locale], capture_output=True,
                            text=True, cwd=ROOT, check=True).stdout
    lines = output.splitlines()
    start = lines.index(title)
    section = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        section.append(line.strip())
    return section
