"""The torch matrix: the rules, content/torch_matrix.toml's properties, and bad edits that fail loudly.

content/'s matrix is checked for what stays true whatever release is added: sorted, dated,
sourced, current, cross-referenced, and the facts of past releases (a series, not a patch
version, where a newer patch may replace it). What the newest releases look like today
(unconfirmed builds, versions by position) is checked on the frozen copy in
tests/data/torch_matrix.toml, which the loader reads the same way, as the rules' tests do.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import tomli_w

from tests.conftest import FROZEN_MATRIX, frozen_matrix_data
from wizard.knowledge.content import content_dir
from wizard.knowledge.damaged import KnowledgeError
from wizard.pytorch.matrix import arch_support, driver_at_least, load_matrix, parse_cc, sm_name, version_tuple

MATRIX = load_matrix()
RAW = tomllib.loads((content_dir() / "torch_matrix.toml").read_text(encoding="utf-8"))
FROZEN = frozen_matrix_data()


def series(version: str) -> tuple[int, ...]:
    return version_tuple(version)[:2]


def builds_covering(cc: str, platform: str = "linux-x86_64", matrix=MATRIX):
    return [(r.version, b.variant.name) for r in matrix.releases for b in r.builds
            if b.variant.kind == "cuda" and platform in b.platforms and arch_support(b.arch_list, cc) == "sass"]


# ---------------------------------------------------------------------------------------------
# The rules


@pytest.mark.parametrize("arch_list, cc, expected", [
    (["sm_86"], "8.6", "sass"),
    (["sm_86"], "8.9", "sass"),        # Ada runs Ampere's sm_86 code (same major, higher minor)
    (["sm_86"], "8.0", None),          # but not the other way round
    (["sm_80", "sm_86"], "9.0", None),  # never across majors
    (["sm_60"], "6.1", "sass"),        # GTX 1080 Ti on sm_60
    (["sm_120"], "12.1", "sass"),      # DGX Spark runs sm_120
    (["sm_90a"], "9.0", "sass"),       # arch-specific code: exactly 9.0 ...
    (["sm_90a"], "9.1", None),         # ... and nothing else
    (["compute_90"], "12.0", "ptx"),   # PTX compiles for anything newer
    (["compute_120"], "9.0", None),
    (["sm_37", "compute_37"], "3.5", None),
    ([], "8.6", None),
    (["sm_86"], "banana", None),
])
def test_arch_support(arch_list, cc, expected):
    assert arch_support(arch_list, cc) == expected


@pytest.mark.parametrize("driver, floor, ok", [
    ("580.65.06", "580", True), ("579.99", "580", False), ("525.60.13", "525.60.13", True),
    ("525.60.12", "525.60.13", False), ("525.105.17", "525.60.13", True), ("566.36", "528.33", True),
    ("470.82.01", "450.80.02", True), ("banana", "450", False), ("550", "550.54.14", False),
])
def test_driver_at_least(driver, floor, ok):
    assert driver_at_least(driver, floor) is ok


def test_parse_cc_and_sm_name():
    assert parse_cc("8.6") == (8, 6) and parse_cc(" 12.0 ") == (12, 0)
    assert parse_cc("86") is None and parse_cc("8.6.1") is None and parse_cc("") is None
    assert sm_name("12.0") == "sm_120" and sm_name("6.1") == "sm_61"


# ---------------------------------------------------------------------------------------------
# content/'s matrix: properties that hold whatever release is added


def test_releases_are_newest_first_one_per_series_and_dated():
    versions = [version_tuple(r.version) for r in MATRIX.releases]
    assert versions == sorted(versions, reverse=True)
    assert len({v[:2] for v in versions}) == len(versions)            # the newest patch of each series
    released = [r.released for r in MATRIX.releases]
    assert released == sorted(released, reverse=True), released       # dated, in the same order


def test_the_matrix_is_current_with_its_releases_and_sources():
    """`checked` is the day it was last read against its sources: no release and no source is
    dated after it. `newest`, the newest release the chooser may pick, is the newest one with a
    confirmed build: a release listed as confirmed is never left out of the choice."""
    assert all(r.released <= MATRIX.checked for r in MATRIX.releases)
    assert all(s.checked <= MATRIX.checked for s in MATRIX.sources.values())
    confirmed = [r.version for r in MATRIX.releases if any(b.confirmed and not b.experimental for b in r.builds)]
    assert MATRIX.newest == confirmed[0]


def test_every_release_has_a_linux_gpu_build_and_a_default_from_pypi():
    for release in MATRIX.releases:
        kinds = {b.variant.kind for b in release.builds if "linux-x86_64" in b.platforms}
        assert "cuda" in kinds, release.version
        assert release.pypi_default("linux-x86_64") in {b.variant.name for b in release.builds}
        assert (release.pypi_default("windows-x86_64"), release.pypi_default("macos-arm64")) == ("cpu", "mps")


def test_python_ranges_only_move_forward():
    for newer, older in zip(MATRIX.releases, MATRIX.releases[1:]):
        assert version_tuple(newer.python_min) >= version_tuple(older.python_min), newer.version
    # The last release for a Python the list leaves behind: none newer supports it.
    for python, torch in MATRIX.python_last.items():
        later = [r.version for r in MATRIX.releases if version_tuple(r.version) > version_tuple(torch)]
        assert not any(MATRIX.release(v).supports_python(python) for v in later), (python, torch)
        listed = MATRIX.release(torch)
        assert listed is None or listed.version != torch or listed.supports_python(python), (python, torch)


def test_legacy_cuda_floors_are_before_minor_version_compatibility():
    versions = [version_tuple(entry.cuda) for entry in MATRIX.legacy_cuda]
    assert versions == sorted(versions, reverse=True) and all(v < (11, 1) for v in versions)


def test_sizes_are_of_listed_release_series():
    for fact in MATRIX.sizes:
        version = fact.torch_version.split("+")[0]
        assert MATRIX.release(version) is not None, fact
        assert version_tuple(version) <= version_tuple(MATRIX.newest), fact


# The facts of past releases, as their sources give them (anchors.md sections 10–12). A release
# is named by its series: a newer patch of it replaces the version listed.


def test_pypi_linux_defaults_follow_pypi_metadata():
    # Section 12 (wins over section 10): 2.8–2.10 CUDA 12.8, 2.11–2.14 CUDA 13.0, 2.15 CUDA 13.2.
    expected = {"2.8": "cu128", "2.9": "cu128", "2.10": "cu128", "2.11": "cu130", "2.12": "cu130",
                "2.13": "cu130", "2.14": "cu130", "2.15": "cu132"}
    for name, variant in expected.items():
        assert MATRIX.release(name).pypi_linux_default == variant, name


def test_python_ranges_follow_requires_python():
    assert MATRIX.release("2.15").python_min == "3.11"       # section 12: >=3.11
    for name in ("2.9", "2.10", "2.11", "2.12", "2.13", "2.14"):
        assert MATRIX.release(name).python_min == "3.10"
    assert MATRIX.release("2.8").python_min == "3.9"


def test_pypi_wheels_of_2_13_and_2_14_stop_at_python_3_14():
    # RELEASE.md says <=3.15 for both, but 3.15 was a pre-release then: the release matrix
    # (test-infra) has 3.10-3.14, and 2.14.0's cp315 wheels went to download.pytorch.org only
    # (test-infra #8710). Plain PyPI, which the Mac commands use, stops at cp314.
    for name in ("2.9", "2.10", "2.11", "2.12", "2.13", "2.14"):
        assert MATRIX.release(name).python_max == "3.14", name
        assert not MATRIX.release(name).supports_python("3.15")


def test_rocm_7_14_arrives_in_2_14_beside_7_2():
    # RELEASE.md for 2.14 (pytorch #194367): ROCm 7.14; release/2.14 builds ROCm 7.2 and 7.14
    # (test-infra #8498). The 7.14 wheels take ROCm from AMD's pip packages and drop gfx900/gfx906.
    rocm = [b.variant.name for b in MATRIX.release("2.14").builds if b.variant.kind == "rocm"]
    assert rocm == ["rocm7.14", "rocm7.2"]                  # 7.14 first: the one the chooser prefers
    v714 = MATRIX.variants["rocm7.14"]
    assert v714.rocm == "7.14" and v714.index_url == "https://download.pytorch.org/whl/rocm7.14"
    assert {"gfx1103", "gfx1150", "gfx1151", "gfx1200", "gfx1201", "gfx950", "gfx942"} <= set(v714.gfx)
    assert not {"gfx900", "gfx906"} & set(v714.gfx) and {"gfx900", "gfx906"} <= set(MATRIX.variants["rocm7.2"].gfx)
    # Earlier releases never had 7.14.
    assert not any(b.variant.name == "rocm7.14" for r in MATRIX.releases if series(r.version) < (2, 14)
                   for b in r.builds)


def test_cu129_wheels_exist_for_2_10_on_linux():
    build = next(b for b in MATRIX.release("2.10").builds if b.variant.name == "cu129")
    assert build.platforms == ("linux-x86_64",) and build.confirmed
    assert build.arch_list == ("sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120")
    assert not any(b.variant.name == "cu129" for r in MATRIX.releases if series(r.version) > (2, 10)
                   for b in r.builds)


def test_plain_pypi_on_linux_aarch64_is_cuda_from_2_11():
    # test-infra #7869 (2026-03-23): "We published aarch64 CUDA 13.0 binaries to pypi".
    assert MATRIX.release("2.10").pypi_default("linux-aarch64") == "cpu"
    for name in ("2.11", "2.12", "2.13", "2.14"):
        assert MATRIX.release(name).pypi_default("linux-aarch64") == "cu130", name
    release = MATRIX.release("2.14")
    assert (release.pypi_default("linux-x86_64"), release.pypi_default("windows-x86_64"),
            release.pypi_default("macos-arm64")) == ("cu130", "cpu", "mps")


def test_pascal_only_on_cu126_from_2_8_and_last_in_2_14():
    # Section 10: "from 2.8 on [Maxwell/Pascal] are supported only by cu126 (cu118 until 2.7)".
    covering = builds_covering("6.1")
    assert {v for r, v in covering if series(r) >= (2, 8)} == {"cu126"}
    assert {v for r, v in covering if series(r) < (2, 8)} <= {"cu118", "cu121", "cu124", "cu126"}
    # The cu126 notice: no CUDA 12.6 wheels from 2.15 on, so none for Pascal.
    assert max(series(r) for r, _ in covering) == (2, 14)


def test_volta_only_on_cu126_from_2_11():
    covering = builds_covering("7.0")
    assert {v for r, v in covering if series(r) >= (2, 11)} == {"cu126"}
    assert any(series(r) == (2, 10) and v == "cu128" for r, v in covering)
    assert not any(series(r) == (2, 7) and v == "cu128" for r, v in covering)


def test_blackwell_needs_cu128_or_newer_from_2_7():
    covering = builds_covering("12.0")
    assert min(series(r) for r, _ in covering) == (2, 7)
    assert not any(v in ("cu118", "cu121", "cu124", "cu126") for _, v in covering)
    assert all(v.startswith("cu") and (int(v[2:4]), int(v[4:])) >= (12, 8) for _, v in covering)


def test_cu128_dropped_in_2_12():
    assert any(series(r) == (2, 11) and v == "cu128" for r, v in builds_covering("8.6"))
    assert not any(v == "cu128" and series(r) >= (2, 12) for r, v in builds_covering("8.6"))


def test_driver_floors_follow_nvidia_and_uv():
    v = MATRIX.variants
    for name in ("cu121", "cu124", "cu126", "cu128", "cu129"):
        assert (v[name].linux_compat, v[name].windows_compat) == ("525.60.13", "528.33")
    assert (v["cu118"].linux_compat, v["cu118"].windows_compat) == ("450.80.02", "452.39")
    assert v["cu130"].linux_compat == v["cu132"].linux_compat == "580"
    # NVIDIA Table 3 for the toolkits PyTorch builds with (cu126: 12.6.3, cu128: 12.8.1, cu132: 13.2.1).
    assert (v["cu126"].linux_toolkit, v["cu126"].windows_toolkit) == ("560.35.05", "561.17")
    assert (v["cu128"].linux_toolkit, v["cu128"].windows_toolkit) == ("570.124.06", "572.61")
    assert v["cu132"].linux_toolkit == "595.58.03" and v["cu132"].toolkit_floor("windows") is None


def test_rocm_is_linux_only_and_gfx1151_arrives_in_7_2():
    for release in MATRIX.releases:
        for build in release.builds:
            if build.variant.kind == "rocm":
                assert build.platforms == ("linux-x86_64",)
    assert "gfx1151" in MATRIX.variants["rocm7.2"].gfx and "gfx1151" not in MATRIX.variants["rocm7.1"].gfx
    assert "gfx950" in MATRIX.variants["rocm7.1"].gfx and "gfx950" not in MATRIX.variants["rocm6.4"].gfx


# ---------------------------------------------------------------------------------------------
# The frozen copy (tests/data/torch_matrix.toml): the newest releases as the rules' tests see
# them, read by the same loader, with what content/ had on 2026-12-01 still unconfirmed.


def test_the_frozen_matrix_is_the_one_the_rules_tests_expect():
    assert [r.version for r in FROZEN.releases] == [
        "2.15.0", "2.14.1", "2.13.0", "2.12.1", "2.11.0", "2.10.0", "2.9.1", "2.8.0", "2.7.1", "2.6.0",
        "2.5.1", "2.4.1"]
    assert (FROZEN.newest, FROZEN.checked) == ("2.15.0", "2026-12-01")
    # What a loader must keep of an unconfirmed fact: the chooser then prefers another build.
    assert "python_max" in FROZEN.release("2.15").unconfirmed and FROZEN.release("2.15").supports_python("3.15")
    assert [(b.variant.name, b.confirmed) for b in FROZEN.release("2.15").builds if b.variant.kind == "rocm"] \
        == [("rocm7.14", False)]
    assert FROZEN.release("2.15").pypi_default("linux-aarch64") is None     # not recorded
    assert max((r for r, _ in builds_covering("6.1", matrix=FROZEN)), key=version_tuple) == "2.14.1"


def test_the_frozen_matrix_has_what_content_had_that_day():
    """The same file format and loader; only the notes are left out and the sources cited as one."""
    assert FROZEN_MATRIX.name == "torch_matrix.toml" and set(FROZEN.sources) == {"frozen", "measured"}
    assert all(s.url.startswith("https://") for s in FROZEN.sources.values())
    assert FROZEN.size("cuda").torch_download_mb + FROZEN.size("cuda").libraries_download_mb \
        == pytest.approx(FROZEN.size("cuda").download_mb, abs=1)


def test_size_facts_add_up_and_cuda_is_much_bigger():
    cpu, cuda = MATRIX.size("cpu"), MATRIX.size("cuda")
    assert cuda.download_mb > 10 * cpu.download_mb
    assert cuda.torch_download_mb + cuda.libraries_download_mb == pytest.approx(cuda.download_mb, abs=1)


def test_every_source_is_used_and_every_url_is_https():
    used = set()
    for table in ("arch_sets", "variants"):
        for entry in RAW[table].values():
            used.update(entry["source"])
    for release in RAW["releases"]:
        used.update(release["source"])
        for build in release["builds"]:
            used.update(build["source"])
    used.update(RAW["cpu"]["source"])
    used.update(RAW["macos_intel"]["source"])
    for table in ("legacy_cuda", "python_last"):
        for entry in RAW.get(table, []):
            used.update(entry["source"])
    for size in RAW["sizes"]:
        used.update(size["source"])
    assert used == set(MATRIX.sources)
    assert all(s.url.startswith("https://") for s in MATRIX.sources.values())


# ---------------------------------------------------------------------------------------------
# Bad edits are caught, naming file, entry and field (edits of the frozen copy: the entries
# named by position stay the same whatever content/ gains)


def frozen_data() -> dict:
    return tomllib.loads(FROZEN_MATRIX.read_text(encoding="utf-8"))


def broken(tmp_path: Path, edit) -> KnowledgeError:
    data = frozen_data()
    edit(data)
    path = tmp_path / "torch_matrix.toml"
    path.write_bytes(tomli_w.dumps(data).encode("utf-8"))
    with pytest.raises(KnowledgeError) as info:
        load_matrix(path)
    assert info.value.file == "torch_matrix.toml"
    return info.value


def test_unknown_field_is_a_typo(tmp_path):
    err = broken(tmp_path, lambda d: d["releases"][2].update(pyhton_max="3.14"))
    assert err.entry == 'releases[2] "2.13.0"' and err.field == "pyhton_max"


def test_build_naming_an_undefined_variant(tmp_path):
    err = broken(tmp_path, lambda d: d["releases"][0]["builds"][0].update(variant="cu999"))
    assert err.field == "variant" and "cu999" in err.reason and "2.15.0" in err.entry


def test_build_naming_an_undefined_arch_set(tmp_path):
    err = broken(tmp_path, lambda d: d["releases"][1]["builds"][0].update(arch="cu13-typo"))
    assert err.field == "arch" and "builds[0]" in err.entry


def test_undefined_source_id(tmp_path):
    err = broken(tmp_path, lambda d: d["variants"]["cu126"].update(source=["frozen", "blog"]))
    assert err.entry == 'variants."cu126"' and err.field == "source" and "blog" in err.reason


def test_releases_out_of_order(tmp_path):
    def swap(d):
        d["releases"][3], d["releases"][4] = d["releases"][4], d["releases"][3]
    err = broken(tmp_path, swap)
    assert err.field == "version" and "newest first" in err.reason


def test_toolkit_floor_below_compat_floor(tmp_path):
    err = broken(tmp_path, lambda d: d["variants"]["cu128"].update(linux_toolkit="520.1"))
    assert err.field == "linux_toolkit"


def test_cuda_name_and_version_disagree(tmp_path):
    err = broken(tmp_path, lambda d: d["variants"]["cu126"].update(cuda="12.8"))
    assert err.field == "cuda" and "cu126" in err.reason


def test_pypi_default_must_be_a_linux_build(tmp_path):
    err = broken(tmp_path, lambda d: d["releases"][2].update(pypi_linux_default="cu118"))
    assert err.field == "pypi_linux_default"


def test_pypi_aarch64_default_must_be_cpu_or_an_aarch64_build(tmp_path):
    err = broken(tmp_path, lambda d: d["releases"][1].update(pypi_aarch64_default="cu126"))
    assert err.field == "pypi_aarch64_default" and "aarch64" in err.reason
    assert load_matrix().release("2.10").pypi_aarch64_default == "cpu"


def test_bad_arch_and_unsorted_arch_list(tmp_path):
    err = broken(tmp_path, lambda d: d["arch_sets"]["cu13"].update(sm=["sm_75", "sm_8.0"]))
    assert err.entry == "arch_sets.cu13" and err.field == "sm"
    err = broken(tmp_path, lambda d: d["arch_sets"]["cu13"].update(sm=["sm_80", "sm_75"]))
    assert "ascending" in err.reason


def test_unconfirmed_must_name_a_real_field(tmp_path):
    err = broken(tmp_path, lambda d: d["releases"][0].update(unconfirmed=["pythonmax"]))
    assert err.field == "unconfirmed"


def test_sizes_that_do_not_add_up(tmp_path):
    err = broken(tmp_path, lambda d: d["sizes"][1].update(download_mb=100.0))
    assert err.entry == "sizes[1]" and err.field == "download_mb"


def test_not_toml_at_all(tmp_path):
    path = tmp_path / "torch_matrix.toml"
    path.write_text("releases = [\n")
    with pytest.raises(KnowledgeError, match="not valid TOML"):
        load_matrix(path)



def test_a_source_listed_twice(tmp_path):
    err = broken(tmp_path, lambda d: d["variants"]["cu126"].update(source=["frozen"] * 2))
    assert err.entry == 'variants."cu126"' and err.field == "source" and "twice" in err.reason


def test_an_unknown_top_level_table(tmp_path):
    err = broken(tmp_path, lambda d: d.update(relases=[]))
    assert err.field == "relases" and "typo" in err.reason


def test_a_toolkit_floor_may_be_left_blank_but_not_garbled(tmp_path):
    path = tmp_path / "ok.toml"
    data = frozen_data()
    data["variants"]["cu128"]["windows_toolkit"] = ""
    path.write_bytes(tomli_w.dumps(data).encode("utf-8"))
    assert load_matrix(path).variants["cu128"].toolkit_floor("windows") is None
    err = broken(tmp_path, lambda d: d["variants"]["cu128"].update(windows_toolkit="five-sixty"))
    assert err.field == "windows_toolkit" and "driver version" in err.reason


def test_a_cuda_field_on_a_rocm_variant(tmp_path):
    rocm = next(name for name in frozen_data()["variants"] if name.startswith("rocm"))
    err = broken(tmp_path, lambda d: d["variants"][rocm].update(cuda="12.6"))
    assert err.field == "cuda" and "rocm" in err.reason


def test_a_build_on_an_unknown_platform(tmp_path):
    err = broken(tmp_path, lambda d: d["releases"][0]["builds"][0].update(platforms=["linux-riscv"]))
    assert err.field == "platforms" and "linux-x86_64" in err.reason


def test_the_files_own_keys_follow_their_declaration(tmp_path):
    err = broken(tmp_path, lambda d: d.update(schema="gpu-wizard/torch-matrix/2"))
    assert err.field == "schema" and "torch-matrix/1" in err.reason
    err = broken(tmp_path, lambda d: d.update(newest="2.15"))
    assert err.field == "newest" and "version like" in err.reason
    err = broken(tmp_path, lambda d: d.pop("sizes"))
    assert err.field == "sizes" and "missing" in err.reason
