#!/usr/bin/env python3
"""Writes the ICU data the release links: the toolchain's, with only the languages Varsel speaks.

Foundation formats dates, times, numbers and lists through ICU, whose data the toolchain links into every static
binary whole: 34 MB of Unicode and locale tables for every language ICU knows, a third of the release. Varsel speaks
English and Norwegian Bokmål, so this keeps what ICU needs for those and for anything that is not a language's own:

- every locale's data for root, English (en, en_*) and Norwegian (no, nb, nn and their regions), in every tree
  (dates and numbers, collation, currencies, language and region names, units, time zones, spell-out rules);
- everything that is not one language's: time zones (zoneinfo64, metaZones), likely subtags, plurals, numbering
  systems, supplemental data, normalisation, case and property tables, the root collation, the break rules,
  transliteration, and each tree's shared key pool and index;

and leaves out the rest of the languages, the legacy character-set converters (Varsel reads and writes UTF-8 only;
UTF-8, UTF-16, ASCII and Latin-1 are built into ICU's code) and the word dictionaries for Chinese, Japanese, Khmer,
Lao, Burmese and Thai (without them, those scripts break into words by the rules alone).

Reads the ICU data out of the toolchain's `lib_FoundationICU.a` (its `icudt<version>_dat` symbol) and writes
`Sources/VarselICUData/icudt<version>l.dat`, which `Sources/VarselICUData/icu_data.c` links under the same symbol,
so the linker takes it instead of the toolchain's. Run it when the toolchain's ICU changes; `--check` only says
whether the file is what it would write (scripts/package.sh asks before every release):

    scripts/trim_icu_data.py [--check] [path/to/lib_FoundationICU.a]
"""
from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT_DIRECTORY = ROOT / "Sources" / "VarselICUData"

# A locale's own data: a file named by a language code (two or three letters), maybe with script, region and variant.
LOCALE_FILE = re.compile(r"^(root|[a-z]{2,3}(_[A-Za-z0-9]*)*)\.res$")
# Named like a locale but shared by all of them.
SHARED_RESOURCES = {"res_index.res", "pool.res"}
KEPT_LANGUAGES = {"root", "en", "no", "nb", "nn"}
LEFT_OUT_SUFFIXES = (".cnv", ".dict")


def toolchain_library() -> Path:
    """The static ICU library of the toolchain that `swiftc` runs, found from its resource directory."""
    try:
        info = json.loads(subprocess.run(["swiftc", "-print-target-info"], capture_output=True, text=True, check=True).stdout)
    except (OSError, subprocess.CalledProcessError, json.JSONDecodeError):
        sys.exit("swiftc -print-target-info did not answer: give the path of lib_FoundationICU.a.")
    library = Path(info["paths"]["runtimeResourcePath"]).parent / "swift_static/linux/lib_FoundationICU.a"
    if not library.exists():
        sys.exit(f"The toolchain has no {library}: give the path of lib_FoundationICU.a.")
    return library


def archive_members(data: bytes):
    """Yields each member of a System V `ar` archive as (name, bytes)."""
    assert data[:8] == b"!<arch>\n", "not an ar archive"
    offset, long_names = 8, b""
    while offset + 60 <= len(data):
        header = data[offset : offset + 60]
        name, size = header[:16].decode().strip(), int(header[48:58])
        body = data[offset + 60 : offset + 60 + size]
        if name == "//":
            long_names = body
        elif name.startswith("/") and name[1:].isdigit():
            start = int(name[1:])
            name = long_names[start : long_names.index(b"/\n", start)].decode()
        yield name.rstrip("/"), body
        offset += 60 + size + (size & 1)


def symbol_bytes(elf: bytes, pattern: re.Pattern) -> tuple[str, bytes] | None:
    """The name and contents of the first defined symbol in a 64-bit little-endian ELF object whose name matches."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        return None
    section_offset, = struct.unpack_from("<Q", elf, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, section_offset + i * entry_size) for i in range(count)]
    for section in sections:
        if section[1] != 2:  # SHT_SYMTAB
            continue
        strings = sections[section[6]]
        for index in range(section[5] // section[9]):
            name_offset, _, _, shndx, value, size = struct.unpack_from("<IBBHQQ", elf, section[4] + index * section[9])
            start = strings[4] + name_offset
            name = elf[start : elf.index(b"\0", start)].decode()
            if pattern.fullmatch(name) and 0 < shndx < len(sections):
                data_offset = sections[shndx][4] + value
                return name, elf[data_offset : data_offset + size]
    return None


def items(package: bytes) -> tuple[int, list[tuple[str, bytes]]]:
    """The header's size and the items of an ICU common data package (format `CmnD`), in their order."""
    header_size, magic1, magic2 = struct.unpack_from("<HBB", package, 0)
    assert (magic1, magic2) == (0xDA, 0x27) and package[12:16] == b"CmnD", "not ICU common data"
    count, = struct.unpack_from("<I", package, header_size)
    table = [struct.unpack_from("<II", package, header_size + 4 + 8 * i) for i in range(count)]
    result = []
    for index, (name_offset, data_offset) in enumerate(table):
        start = header_size + name_offset
        name = package[start : package.index(b"\0", start)].decode()
        end = table[index + 1][1] if index + 1 < count else len(package) - header_size
        result.append((name, package[header_size + data_offset : header_size + end]))
    return header_size, result


def kept(name: str) -> bool:
    file = name.rsplit("/", 1)[-1]
    if file.endswith(LEFT_OUT_SUFFIXES):
        return False
    if file in SHARED_RESOURCES or not LOCALE_FILE.match(file):
        return True
    return file.removesuffix(".res").split("_")[0] in KEPT_LANGUAGES


def package(header: bytes, chosen: list[tuple[str, bytes]]) -> bytes:
    """An ICU common data package of the chosen items: the header, the table of names and offsets, then each item
    on a 16-byte boundary, in the order given (ICU finds items by a binary search of their names)."""
    names = b"".join(name.encode() + b"\0" for name, _ in chosen)
    table_size = 4 + 8 * len(chosen)
    data_start = (table_size + len(names) + 15) & ~15
    table, blobs, name_offset, data_offset = [struct.pack("<I", len(chosen))], [], table_size, data_start
    for name, blob in chosen:
        table.append(struct.pack("<II", name_offset, data_offset))
        name_offset += len(name) + 1
        padded = blob + b"\0" * (-len(blob) % 16)
        blobs.append(padded)
        data_offset += len(padded)
    body = b"".join(table) + names
    return header + body + b"\0" * (data_start - len(body)) + b"".join(blobs)


def main() -> None:
    arguments = sys.argv[1:]
    check = "--check" in arguments
    arguments = [argument for argument in arguments if argument != "--check"]
    library = Path(arguments[0]) if arguments else toolchain_library()
    found = None
    for _, member in archive_members(library.read_bytes()):
        found = symbol_bytes(member, re.compile(r"icudt\d+_dat"))
        if found:
            break
    if not found:
        sys.exit(f"{library} has no ICU data symbol (icudt<version>_dat).")
    symbol, full = found
    header_size, all_items = items(full)
    chosen = [(name, blob) for name, blob in all_items if kept(name)]
    trimmed = package(full[:header_size], chosen)
    version = symbol.removeprefix("icudt").removesuffix("_dat")
    output = OUTPUT_DIRECTORY / f"icudt{version}l.dat"
    if check:
        if not output.exists() or output.read_bytes() != trimmed:
            sys.exit(f"{output.relative_to(ROOT)} is not the trimmed ICU data of {library}: "
                     "run scripts/trim_icu_data.py.")
        return
    for stale in OUTPUT_DIRECTORY.glob("icudt*l.dat"):
        if stale != output:
            stale.unlink()
    output.write_bytes(trimmed)
    print(f"Wrote {output.relative_to(ROOT)}: {len(chosen)} of {len(all_items)} items, "
          f"{len(trimmed):,} of {len(full):,} bytes (ICU data {version}, symbol {symbol}).")


if __name__ == "__main__":
    main()
