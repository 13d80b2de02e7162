"""Facts issue 26 added to the probes that have no test file of their own: Secure Boot's state,
read from the UEFI variable the way `mokutil --sb-state` reads it."""

from __future__ import annotations

from pathlib import Path

from wizard.probe.nvidia_files import SECURE_BOOT_VAR, secure_boot


def _efi(root: Path, value: bytes | None) -> Path:
    var = root / SECURE_BOOT_VAR
    var.parent.mkdir(parents=True)
    if value is not None:
        var.write_bytes(value)
    return root


def test_secure_boot_on():
    # 4 bytes of attributes (EFI_VARIABLE_NON_VOLATILE | BOOTSERVICE | RUNTIME = 0x06), then 1.
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        assert secure_boot(_efi(Path(folder), b"\x06\x00\x00\x00\x01")) is True


def test_secure_boot_off(tmp_path):
    assert secure_boot(_efi(tmp_path, b"\x06\x00\x00\x00\x00")) is False


def test_a_bios_boot_has_no_secure_boot(tmp_path):
    (tmp_path / "sys/firmware").mkdir(parents=True)
    assert secure_boot(tmp_path) is False


def test_unknown_when_the_variable_cannot_be_read(tmp_path):
    assert secure_boot(_efi(tmp_path, None)) is None      # UEFI, but the variable is not there
    assert secure_boot(tmp_path / "elsewhere") is None    # no /sys at all (a sandbox)
    short = tmp_path / "short"
    assert secure_boot(_efi(short, b"\x06\x00")) is None


def test_the_probe_puts_it_on_the_machine(monkeypatch):
    from wizard.probe import gather, nvidia_files
    from wizard.probe.facts import NvidiaInfo, ProbeNote
    from wizard.probe.system import SystemFacts

    monkeypatch.setattr(nvidia_files, "secure_boot", lambda root=Path("/"): True)
    hardware = gather.probe_hardware()
    if hardware.notes and hardware.notes[0].name != "pci":
        return  # not Linux: Secure Boot is read on Linux only
    assert hardware.secure_boot is True
    facts = SystemFacts("Linux", "Linux 6.8", "x86_64", "3.12.4", "cpu", 1, 1, 1.0, 1.0, None)
    nvidia = gather.NvidiaResult(NvidiaInfo(status="no-driver", reason="driver-not-loaded"), (),
                                 ProbeNote("nvml", "error"))
    assert gather.assemble(facts, nvidia, hardware).nvidia.secure_boot is True
