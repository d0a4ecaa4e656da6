"""Reading what a screen reader gets: Chromium's accessibility tree through the DevTools protocol."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class AXNode:
    role: str
    name: str
    description: str
    properties: dict
    backend_id: int | None
    ignored: bool

    def prop(self, key):
        return self.properties.get(key)


def full_tree(page) -> list[AXNode]:
    session = page.context.new_cdp_session(page)
    try:
        nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    result = []
    for node in nodes:
        properties = {p["name"]: p.get("value", {}).get("value") for p in node.get("properties", [])}
        result.append(AXNode(
            role=(node.get("role") or {}).get("value", ""),
            name=(node.get("name") or {}).get("value", ""),
            description=(node.get("description") or {}).get("value", ""),
            properties=properties,
            backend_id=node.get("backendDOMNodeId"),
            ignored=node.get("ignored", False),
        ))
    return result


def find(page, role: str, name: str | None = None) -> list[AXNode]:
    return [n for n in full_tree(page) if n.role == role and not n.ignored and (name is None or n.name == name)]


def focused(page) -> AXNode | None:
    """The focused element (the document itself reports focus too; the element inside it wins)."""
    nodes = [n for n in full_tree(page) if n.prop("focused") and n.role != "RootWebArea"]
    return nodes[-1] if nodes else None


def web_phrase(node: AXNode, position: tuple[str, str] | None = None, role_word: str | None = None) -> str:
    """What a web screen reader says, as VarselCore's web composer orders it: name, description, role, position."""
    parts = [node.name]
    if node.description:
        parts.append(node.description)
    if role_word:
        parts.append(role_word)
    if position:
        parts.append(f"{position[0]} of {position[1]}")
    return ", ".join(parts)
