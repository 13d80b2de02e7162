"""content/amd_gpus.toml and content/intel_gpus.toml: checked at load, and right on the cards
the real outputs and the recorded machines show."""

from __future__ import annotations

import shutil

import pytest

from wizard.knowledge.damaged import KnowledgeError
from wizard.probe.facts import Gpu
from wizard.pytorch import vendor_gpus
from wizard.pytorch.vendor_gpus import amd_gfx, amd_is_apu, hsa_override, intel_xpu_capable, load_tables


def amd(pci_id: str, **kw) -> Gpu:
    return Gpu(vendor="amd", name="AMD GPU", source="pci", pci_id=pci_id, **kw)


def intel(pci_id: str, name: str = "Intel GPU") -> Gpu:
    return Gpu(vendor="intel", name=name, source="pci", pci_id=pci_id)


@pytest.mark.parametrize("pci_id, gfx", [
    ("1002:73bf", "gfx1030"),   # Navi 21: RX 6800/6800 XT/6900 XT (real lspci output)
    ("1002:73df", "gfx1031"),   # Navi 22: RX 6700 XT
    ("1002:731f", "gfx1010"),   # Navi 10: RX 5700 XT
    ("1002:744c", "gfx1100"),   # Navi 31: RX 7900 XT/XTX
    ("1002:7480", "gfx1102"),   # Navi 33: RX 7600
])
def test_amd_targets_of_cards_seen_in_real_outputs(pci_id, gfx):
    assert amd_gfx(amd(pci_id)) == gfx


def test_the_driver_reported_target_wins_over_the_table():
    assert amd_gfx(amd("1002:73bf", gfx_target="gfx1031")) == "gfx1031"
    assert amd_gfx(amd("1002:ffff")) is None


def test_apus_are_known_as_apus():
    tables = load_tables()
    apus = {t.gfx for t in tables.amd_by_gfx.values() if t.kind == "apu"}
    assert {"gfx1103", "gfx1151"} <= apus
    assert amd_is_apu(amd("1002:ffff", gfx_target="gfx1151"))
    assert not amd_is_apu(amd("1002:73bf"))


def test_overrides_only_for_rdna2_and_rdna3_neighbours():
    tables = load_tables()
    families = {gfx: tables.amd_by_gfx[gfx].family for gfx in tables.overrides}
    assert set(families.values()) <= {"RDNA2", "RDNA3", "RDNA3.5"}, families
    assert hsa_override("gfx1031") == "10.3.0" and hsa_override("gfx1102") == "11.0.0"
    for never in ("gfx1010", "gfx1012", "gfx900", "gfx906", "gfx803"):
        assert hsa_override(never) is None


def test_intel_arc_and_core_ultra_run_xpu_older_integrated_graphics_do_not():
    assert intel_xpu_capable(intel("8086:56a0"))          # Arc A770
    assert intel_xpu_capable(intel("8086:e20b"))          # Arc B580
    assert intel_xpu_capable(intel("8086:7d55"))          # Meteor Lake Arc graphics
    assert not intel_xpu_capable(intel("8086:9a49"))      # Tiger Lake Iris Xe
    assert not intel_xpu_capable(intel("8086:9bc4"))      # Comet Lake UHD (a real laptop's iGPU)
    # Windows reports names, and new cards arrive before tables: "Arc" in the name counts.
    assert intel_xpu_capable(intel("8086:ffff", "Intel(R) Arc(TM) B570 Graphics"))
    assert not intel_xpu_capable(intel("8086:ffff", "Intel(R) UHD Graphics"))


def test_every_pci_id_maps_to_one_entry():
    tables = load_tables()
    assert all(key.startswith("1002:") for key in tables.amd_by_pci)
    assert all(key.startswith("8086:") for key in tables.intel_by_pci)
    assert len(tables.amd_by_pci) > 100 and len(tables.intel_by_pci) > 50


@pytest.mark.parametrize("file, old, new, field", [
    ("amd_gpus.toml", '\ngfx = "gfx1031"', '\ngfx = "navi22"', "gfx"),
    ("amd_gpus.toml", '\nkind = "discrete"', '\nkind = "card"', "kind"),
    ("intel_gpus.toml", "\nxpu = true", '\nxpu = "yes"', "xpu"),
])
def test_a_damaged_table_names_the_file_and_field(tmp_path, monkeypatch, file, old, new, field):
    content = tmp_path / "content"
    shutil.copytree(vendor_gpus.content_dir(), content)
    text = (content / file).read_text(encoding="utf-8")
    assert old in text
    (content / file).write_text(text.replace(old, new, 1), encoding="utf-8")
    monkeypatch.setattr(vendor_gpus, "content_dir", lambda: content)
    vendor_gpus._tables.cache_clear()
    try:
        with pytest.raises(KnowledgeError) as caught:
            load_tables()
        assert file in str(caught.value) and field in str(caught.value)
        # The diagnosis goes on without the table rather than crash.
        assert amd_gfx(amd("1002:73bf")) is None
    finally:
        vendor_gpus._tables.cache_clear()
