"""What a browser itself reports through AT-SPI, independently of Orca: focus changes and live-region text.

Run with Debian's own Python (`/usr/bin/python3`, which has `python3-pyatspi`) inside the test desktop's D-Bus session.
Each event the test needs becomes one JSON line in the output file, flushed at once:

- `{"event": "focus", "role": "heading", "name": "Kari Nordmann", "id": "contact-name-heading", "states": [...]}`
  when an object in a web page takes focus (a dialog's record adds `content`: the text of what it holds);
- `{"event": "state", "state": "checked", "value": false, "id": "setting-sound", ...}` when a control's checked or
  pressed state changes;
- `{"event": "load", "name": "Notifications – Varsel"}` when a document has finished loading, then
  `{"event": "tree", "name": …, "live": ["assertive", "polite"], "nodes": 212}` once the probe has read the page's
  tree as a screen reader does on load (WebKit makes a part of the tree only when something asks for it, and says
  nothing about changes in a part nobody asked for);
- `{"event": "live", "text": "New notification: Stairs drill", "politeness": "polite"}` when text is added inside
  a live region (the `container-live` object attribute that both WebKitGTK and Firefox set on a live region's
  content), whether the engine reports it as inserted text or as a new child.

The screen-reader suite reads these lines to check what the engine said where Orca is the limit (a focused heading,
a switch's role and state, a live-region event). The file's first line, `{"event": "ready"}`, says it listens.
"""
import json
import sys

import pyatspi

OUTPUT = open(sys.argv[1], "a", buffering=1)


def write(record):
    OUTPUT.write(json.dumps(record) + "\n")


def attributes(accessible):
    try:
        pairs = accessible.getAttributes() or []
    except Exception:
        return {}
    result = {}
    for pair in pairs:
        key, _, value = pair.partition(":")
        result[key] = value
    return result


def text_of(accessible):
    try:
        text = accessible.queryText()
        return text.getText(0, -1)
    except Exception:
        return accessible.name or ""


def state_names(accessible):
    try:
        states = accessible.getState().getStates()
    except Exception:
        return []
    return sorted(pyatspi.stateToString(state) if hasattr(pyatspi, "stateToString") else str(state) for state in states)


def content(accessible, limit=40):
    """The text of an object's descendants, in order (a dialog's question and explanation)."""
    texts = []
    for index in range(min(accessible.childCount, limit)):
        child = accessible.getChildAtIndex(index)
        if child is None:
            continue
        text = " ".join(text_of(child).replace("\ufffc", " ").split())
        if text:
            texts.append(text)
        elif child.childCount:
            texts.extend(content(child, limit))
    return texts


def describe(accessible):
    attrs = attributes(accessible)
    record = {
        "role": accessible.getRoleName(),
        "name": accessible.name or "",
        "id": attrs.get("id") or attrs.get("html-id") or "",
        "states": [str(state) for state in state_names(accessible)],
        "attributes": attrs,
    }
    if record["role"] == "dialog":
        record["content"] = content(accessible)
    return record


def on_focus(event):
    if not event.detail1:
        return
    try:
        record = describe(event.source)
    except Exception:
        return
    record["event"] = "focus"
    write(record)


def on_live(event):
    try:
        attrs = attributes(event.source)
        live = attrs.get("container-live") or attrs.get("live")
        if not live or live == "off":
            return
        if event.type.startswith("object:text-changed:insert"):
            text = event.any_data if isinstance(event.any_data, str) else ""
        else:
            child = event.any_data
            text = text_of(child) if child is not None else ""
        text = " ".join(text.replace("\ufffc", " ").split())
        if text:
            write({"event": "live", "type": event.type, "text": text, "politeness": live})
    except Exception:
        return


def on_state(event):
    try:
        record = describe(event.source)
    except Exception:
        return
    record.update({"event": "state", "state": event.type.split(":")[-1], "value": bool(event.detail1)})
    write(record)


def walk(document, limit=3000):
    """Reads every object of `document` once, breadth first; returns the live regions' politeness and the count."""
    live, queue, seen = set(), [document], 0
    while queue and seen < limit:
        accessible = queue.pop(0)
        seen += 1
        try:
            attrs = attributes(accessible)
            if attrs.get("live") and attrs.get("live") != "off":
                live.add(attrs["live"])
            queue.extend(accessible.getChildAtIndex(index) for index in range(accessible.childCount))
        except Exception:
            continue
    return sorted(live), seen


def on_load(event):
    try:
        name = event.source.name or ""
        write({"event": "load", "name": name})
        if name.endswith("Varsel"):
            live, nodes = walk(event.source)
            write({"event": "tree", "name": name, "live": live, "nodes": nodes})
    except Exception:
        return


pyatspi.Registry.registerEventListener(on_load, "document:load-complete")
pyatspi.Registry.registerEventListener(on_state, "object:state-changed:checked", "object:state-changed:pressed")
pyatspi.Registry.registerEventListener(on_focus, "object:state-changed:focused")
pyatspi.Registry.registerEventListener(on_live, "object:text-changed:insert", "object:children-changed:add")
write({"event": "ready"})
pyatspi.Registry.start()
