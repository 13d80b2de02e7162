"""Remove what identifies a person or a machine before anything is shown or shared."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from wizard.probe.model import Machine

_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
_MAC = re.compile(r"\b[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}\b")
_IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
_HOME_UNIX = re.compile(r"(/home/|/Users/|/mnt/c/Users/)[^/\s\"']+")
_HOME_WIN = re.compile(r"([A-Za-z]:\\Users\\)[^\\\s\"']+")


def scrub_text(text: str, home: str | None = None) -> str:
    """Home folders become ~, GPU UUIDs, MAC and IP addresses are removed."""
    home = home if home is not None else os.path.expanduser("~")
    if home and home not in ("/", "~") and len(home) > 1:
        text = text.replace(home, "~")
    text = _HOME_UNIX.sub("~", text)
    text = _HOME_WIN.sub("~", text)
    text = _UUID.sub("<gpu-uuid>", text)
    text = _MAC.sub("<mac>", text)
    return _IPV4.sub(lambda m: m.group(0) if _looks_like_version(m.group(0)) else "<ip>", text)


def _looks_like_version(dotted: str) -> bool:
    # "550.54.14.1" style driver strings are not addresses; real IPv4 octets are ≤ 255.
    return any(int(part) > 255 for part in dotted.split("."))


def redact_machine(machine: Machine) -> Machine:
    torch = machine.torch
    if torch is not None:
        interpreter = Path(torch.interpreter).name if torch.interpreter else None
        torch = replace(torch, interpreter=interpreter,
                        message=scrub_text(torch.message) if torch.message else None)
    nvidia = machine.nvidia
    if nvidia.message:
        nvidia = replace(nvidia, message=scrub_text(nvidia.message))
    return replace(
        machine,
        hostname=None,
        gpus=tuple(replace(g, uuid=None) for g in machine.gpus),
        torch=torch,
        nvidia=nvidia,
        chassis_evidence=tuple(scrub_text(e) for e in machine.chassis_evidence),
        probes=tuple(replace(p, detail=scrub_text(p.detail) if p.detail else None) for p in machine.probes),
    )
