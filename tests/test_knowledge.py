"""The knowledge loader: the real content/ data loads, and every broken field is named precisely."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import tomli_w

from tests.realoutputs import section, sections
from wizard.knowledge import lookup as kn
from wizard.knowledge.content import content_dir
from wizard.knowledge.damaged import KnowledgeError
from wizard.knowledge.load import load_knowledge

DATA_FILES = ("gpus.toml", "goals.toml", "platforms.toml", "currency.toml", "market.toml")
REQUIRED_GOALS = ("learning", "kaggle", "vision-apps", "image-generation", "llm-inference",
                  "llm-finetune", "research")


@pytest.fixture(scope="module")
def real():
    return load_knowledge()


# --- the real data --------------------------------------------------------------------------


def test_real_data_loads_with_every_required_goal(real):
    assert len(real.gpus) >= 100
    assert set(REQUIRED_GOALS) <= set(real.goal_ids)
    assert {"kaggle", "colab", "autodl", "modelscope", "pai-dsw"} <= {p.id for p in real.platforms}
    assert set(real.currency_codes) == {"CNY", "USD"}


def test_default_knowledge_is_cached_and_explicit_folder_is_not(real):
    assert load_knowledge() is real
    fresh = load_knowledge(content_dir())
    assert fresh is not real
    assert fresh.gpus == real.gpus


def test_each_data_file_is_read_once_and_the_default_never_again(real):
    """What keeps loading quick (benchmarks/ measures it): a load opens each data file once,
    and asking for the default data again opens nothing."""
    from collections import Counter

    folder = content_dir()
    opened: list[Path] = []
    recording = False

    def hook(event, args):
        # Audit hooks cannot be removed: this one records only inside this test.
        if recording and event == "open" and isinstance(args[0], (str, Path)):
            opened.append(Path(args[0]))

    sys.addaudithook(hook)
    recording = True
    try:
        load_knowledge()
        again = list(opened)
        load_knowledge(folder)
    finally:
        recording = False
    assert again == []
    reads = Counter(path.name for path in opened if path.parent == folder)
    assert {"gpus.toml", "goals.toml", "platforms.toml"} <= set(reads), reads
    assert set(reads.values()) == {1}, reads


def test_goal_lookup(real):
    assert kn.goal("llm-inference").min_vram_gb <= kn.goal("llm-inference").comfortable_vram_gb
    assert real.goal("learning").label("zh") != real.goal("learning").label("en")
    with pytest.raises(KeyError, match="unknown goal"):
        real.goal("astrology")


def test_goals_are_ordered_by_need_where_the_guide_says_so(real):
    # The guide's goal page prints these numbers; keep page and data in step.
    page = (content_dir() / "en" / "goal.md").read_text(encoding="utf-8")
    for item in real.goals:
        row = f"| {item.min_vram_gb:g} GB | {item.comfortable_vram_gb:g} GB |"
        assert row in page, f"goal.md has no row with {row!r} for {item.id}"


def test_platforms_say_how_they_are_reached_from_mainland_china(real):
    assert real.platform("colab").needs_vpn_from_cn
    for platform_id in ("modelscope", "pai-dsw", "baidu-aistudio", "autodl"):
        platform = real.platform(platform_id)
        assert platform.cn_access == "direct" and platform.region == "cn"
    free = [p for p in real.platforms if p.is_free]
    assert free and all(p.free_vram_gb for p in free)
    assert real.platform("autodl").offers[0].currency == "CNY"


def test_every_unverified_comment_in_gpus_toml_is_listed_in_its_entry(real):
    """The loader drops comments, so the '# unverified' marks must also live in `unverified`."""
    text = (content_dir() / "gpus.toml").read_text(encoding="utf-8")
    blocks = text.split("\n[[gpu]]\n")[1:]
    assert len(blocks) == len(real.gpus)
    for block, gpu in zip(blocks, real.gpus):
        marked = set(re.findall(r"^(\w+) = .*#\s*unverified", block, re.M))
        assert marked <= set(gpu.unverified), f"{gpu.name}: {marked - set(gpu.unverified)} not flagged"


def test_laptop_parts_never_have_more_memory_than_their_desktop_namesake(real):
    laptops = [gpu for gpu in real.gpus if gpu.is_laptop and gpu.vendor == "nvidia"]
    assert laptops
    for gpu in laptops:
        assert gpu.desktop_equivalent, gpu.name
        desktop = real.gpu(gpu.desktop_equivalent)
        assert desktop.segment == "desktop"
        assert gpu.vram_gb <= desktop.vram_gb
        assert gpu.tdp_w_max <= (desktop.tdp_w or 10_000)


# --- prices and currency --------------------------------------------------------------------


def test_us_street_price_is_the_newest_observation_with_its_date(real):
    price = real.price(real.gpu("GeForce RTX 5070 Ti"), "USD")
    assert price.kind == "street" and price.currency == "USD" and price.market == "us"
    assert price.approximate and price.converted_from is None
    observed = [p for p in real.market.prices if p.gpu == "GeForce RTX 5070 Ti" and p.market == "us"]
    assert len(observed) > 1 and price.date == max(p.date for p in observed)


def test_a_range_is_stored_as_its_upper_end(real):
    price = real.price(real.gpu("GeForce RTX 3090"), "USD")
    assert price.low is not None and price.low < price.amount


def test_a_mainland_buyer_gets_the_mainland_price_as_a_dated_range(real):
    for name in ("GeForce RTX 5060", "GeForce RTX 5070", "GeForce RTX 5080"):
        price = real.price(real.gpu(name), "CNY")
        assert price.market == "cn" and price.converted_from is None and price.currency == "CNY"
        assert price.low is not None and price.low < price.amount
        assert price.reliability == "medium"     # a third party's aggregate of channel quotes
        # Mainland quotes, not the US price converted: well above it in 2026.
        us = real.price(real.gpu(name), "USD")
        assert price.amount > us.amount * real.rate("USD", "CNY").rate


def test_a_mainland_buyer_without_a_local_price_gets_a_converted_one_that_says_so(copy):
    def drop_mainland_5080(data):
        data["price"] = [p for p in data["price"]
                         if not (p["gpu"] == "GeForce RTX 5080" and p["market"] == "cn")]
    _edit(copy, "market.toml", drop_mainland_5080)
    knowledge = load_knowledge(copy)
    rate = knowledge.rate("USD", "CNY")
    us = knowledge.price(knowledge.gpu("GeForce RTX 5080"), "USD")
    price = kn.price_in(knowledge.gpu("GeForce RTX 5080"), "CNY", knowledge)
    assert price.converted_from == "USD" and price.converted_market == "us" and price.market == "cn"
    assert price.rate_date == rate.date and price.approximate
    assert abs(price.amount - us.amount * rate.rate) <= 50 and price.amount % 100 == 0  # rounded


def test_the_exchange_rate_is_a_dated_2026_one(real):
    rate = real.rate("USD", "CNY")
    assert rate.date >= "2026-02" and 6.5 < rate.rate < 7.3
    assert rate.source.strip()


def test_cards_not_sold_in_a_market_have_no_price_there(real):
    assert real.price(real.gpu("GeForce RTX 5090"), "CNY") is None      # export rules
    assert real.price(real.gpu("GeForce RTX 4090"), "USD").kind == "used"  # out of production: used only
    assert real.price(real.gpu("GeForce RTX 4090 D"), "USD") is None    # China-only


def test_a_used_price_is_offered_as_used(real):
    price = real.price(real.gpu("GeForce RTX 3090"), "USD")
    assert price.kind == "used" and price.date.startswith("2026-")


def test_launch_prices_are_never_todays_price(real):
    # The 2023 launch price of the RTX 4060 is in the catalog, but it is not a 2026 price.
    assert real.gpu("GeForce RTX 4060").launch_price_usd
    assert real.price(real.gpu("GeForce RTX 4060"), "USD") is None


def test_datacenter_card_has_no_price(real):
    assert real.price(real.gpu("H200 SXM"), "USD") is None


def test_conversion_is_symmetric_and_dated(real):
    cny, rate = kn.convert(100, "USD", "CNY")
    back, inverse = real.convert(cny, "CNY", "USD")
    assert back == pytest.approx(100)
    assert rate.date == inverse.date and rate.date
    assert real.convert(5, "CNY", "CNY")[0] == 5
    with pytest.raises(KeyError):
        real.rate("USD", "EUR")


# --- PCI ids from the recorded lspci / nvidia-smi outputs ----------------------------------


def _lspci_ids(file: str, machine: str) -> list[str]:
    return re.findall(r"\[([0-9a-f]{4}:[0-9a-f]{4})\]", section(file, machine).output)


def test_pci_lookup_of_recorded_nvidia_desktop_cards(real):
    by_id = kn.catalog_by_pci_id(real)
    ids = {pci for s in sections("linux-lspci-driver-binding.txt")
           for pci in re.findall(r"\[(10de:[0-9a-f]{4})\]", s.output)}
    assert "10de:2206" in ids and "10de:1f06" in ids
    assert by_id["10de:2206"].name == "GeForce RTX 3080 10GB"
    assert by_id["10de:1f06"].name == "GeForce RTX 2060 Super"


def test_pci_lookup_of_recorded_laptop_gpu(real):
    ids = _lspci_ids("linux-lspci-laptop-hybrid-gpus.txt", "ASUS laptop")
    nvidia = [pci for pci in ids if pci.startswith("10de:")]
    assert nvidia == ["10de:1f9d"]
    gpu = kn.catalog_by_pci_id(real)[nvidia[0]]
    assert gpu.is_laptop and gpu.vram_gb == 4
    # The Intel iGPU next to it is not a catalog entry.
    assert all(pci not in kn.catalog_by_pci_id(real) for pci in ids if pci.startswith("8086:"))


def test_pci_id_shared_by_two_models_maps_to_the_smaller(real):
    ids = {pci for s in sections("linux-lspci-amd-and-edge-cases.txt")
           for pci in re.findall(r"\[(1002:[0-9a-f]{4})\]", s.output)}
    assert "1002:744c" in ids
    both = kn.gpus_for_pci_id("1002:744C", real)
    assert {gpu.name for gpu in both} == {"Radeon RX 7900 XT", "Radeon RX 7900 XTX"}
    assert kn.catalog_by_pci_id(real)["1002:744c"].name == "Radeon RX 7900 XT"


def test_pci_id_from_nvidia_smi_xml(real):
    xml = sections("nvidia-smi-q-xml-a100-mig.txt")[0].output
    raw = re.search(r"<pci_device_id>([0-9A-F]{4})([0-9A-F]{4})</pci_device_id>", xml)
    pci_id = f"{raw.group(2)}:{raw.group(1)}".lower()   # "20B210DE" = device 20b2, vendor 10de
    assert kn.catalog_by_pci_id(real)[pci_id].name == "A100 80GB (SXM4)"


def test_every_catalog_pci_id_is_in_the_index(real):
    index = kn.catalog_by_pci_id(real)
    for gpu in real.gpus:
        for pci_id in gpu.pci_ids:
            assert re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{4}", pci_id)
            assert index[pci_id].vram_gb <= gpu.vram_gb


# --- names as the tools print them ---------------------------------------------------------


def _names(file: str, pattern: str) -> set[str]:
    return {m.strip() for s in sections(file) for m in re.findall(pattern, s.output)}


def test_find_gpu_with_nvidia_smi_list_names(real):
    names = _names("linux-nvidia-smi-table.txt", r"GPU \d+: ([^(]+) \(UUID")
    names |= _names("linux-nvidia-smi-mig.txt", r"GPU \d+: ([^(]+) \(UUID")
    expected = {
        "NVIDIA H200": "H200 SXM",
        "NVIDIA H100 80GB HBM3": "H100 SXM",
        "NVIDIA GeForce RTX 4080 SUPER": "GeForce RTX 4080 Super",
        "Quadro RTX 4000": None,   # not in the catalog: no guess
    }
    for name, catalog_name in expected.items():
        assert name in names, f"{name!r} is not in the recorded outputs"
        hit = kn.find_gpu(name, knowledge=real)
        assert (hit.name if hit else None) == catalog_name, name


def test_find_gpu_with_nvidia_smi_q_and_xml_names(real):
    names = _names("linux-nvidia-smi-q.txt", r"Product Name\s+: (.+)")
    assert kn.find_gpu("NVIDIA GeForce RTX 4070 Laptop GPU", knowledge=real).name == "GeForce RTX 4070 Laptop GPU"
    assert "NVIDIA GeForce RTX 4070 Laptop GPU" in names
    xml_name = _names("nvidia-smi-q-xml-a100-mig.txt", r"<product_name>(.+)</product_name>").pop()
    assert kn.find_gpu(xml_name, knowledge=real).name == "A100 80GB (SXM4)"


def test_find_gpu_with_windows_and_macos_names(real):
    wmi = _names("windows-wmic-win32-videocontroller.txt", r"(?m)^Name=(.+)$")
    assert kn.find_gpu("NVIDIA GeForce RTX 2060 SUPER", knowledge=real).name == "GeForce RTX 2060 Super"
    assert "NVIDIA GeForce RTX 2060 SUPER" in wmi
    assert kn.find_gpu("Intel(R) HD Graphics 4600", knowledge=real) is None
    mac = _names("macos-spdisplays-apple-silicon-json.txt", r'"sppci_model" : "([^"]+)"')
    assert mac == {"Apple M1"}
    assert kn.find_gpu("Apple M1", laptop=True, knowledge=real).name == "Apple M1"


def test_laptop_flag_never_gives_desktop_specs(real):
    # NVML names the laptop GTX 1650 "NVIDIA GeForce GTX 1650" (linux-nvidia-smi-table.txt).
    assert kn.find_gpu("NVIDIA GeForce GTX 1650", knowledge=real).segment == "desktop"
    assert kn.find_gpu("NVIDIA GeForce GTX 1650", laptop=True, knowledge=real).name == "GeForce GTX 1650 Laptop GPU"
    assert kn.find_gpu("NVIDIA GeForce RTX 3080", laptop=True, knowledge=real) is None


def test_memory_size_picks_the_variant(real):
    assert kn.find_gpu("NVIDIA GeForce RTX 4060 Ti", vram_gb=15.6, knowledge=real).vram_gb == 16
    assert kn.find_gpu("NVIDIA GeForce RTX 4060 Ti", knowledge=real).vram_gb == 8
    assert kn.find_gpu("NVIDIA GeForce RTX 3060", vram_gb=11.7, knowledge=real).name == "GeForce RTX 3060 12GB"
    assert kn.find_gpu("NVIDIA GeForce RTX 3060", vram_gb=8, knowledge=real) is None  # 8 GB model not catalogued
    assert kn.find_gpu("", knowledge=real) is None


def test_every_catalog_name_finds_itself(real):
    for gpu in real.gpus:
        assert kn.find_gpu(gpu.name, knowledge=real) is gpu
        if gpu.vendor == "nvidia":
            assert kn.find_gpu(f"NVIDIA {gpu.name}", vram_gb=gpu.vram_gb, knowledge=real) is gpu


# --- validation: one broken field at a time -------------------------------------------------


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    for name in DATA_FILES:
        shutil.copy(content_dir() / name, tmp_path / name)
    return tmp_path


def _edit(folder: Path, file: str, change) -> None:
    data = tomllib.loads((folder / file).read_text(encoding="utf-8"))
    change(data)
    (folder / file).write_text(tomli_w.dumps(data), encoding="utf-8")


def _set(table: str, key_field: str, key, field, value):
    def change(data):
        for entry in data[table]:
            if entry[key_field] == key:
                if value is _DELETE:
                    del entry[field]
                else:
                    entry[field] = value
                return
        raise AssertionError(f"{key} not in {table}")
    return change


_DELETE = object()
RTX4060 = "GeForce RTX 4060"


def _real_index(name: str) -> int:
    return next(g.index for g in load_knowledge().gpus if g.name == name)


BROKEN = [
    # (file, change, expected entry text, field, words in the reason)
    ("gpus.toml", _set("gpu", "name", RTX4060, "vram_gb", "lots"), f'"{RTX4060}"', "vram_gb", "number"),
    ("gpus.toml", _set("gpu", "name", RTX4060, "vram_gb", -8), f'"{RTX4060}"', "vram_gb", "outside"),
    ("gpus.toml", _set("gpu", "name", RTX4060, "segment", "tablet"), f'"{RTX4060}"', "segment", "not one of"),
    ("gpus.toml", _set("gpu", "name", RTX4060, "pci_device_ids", ["2882"]), f'"{RTX4060}"', "pci_device_ids",
     "item 0"),
    ("gpus.toml", _set("gpu", "name", RTX4060, "street_price_cny", 2000), f'"{RTX4060}"', "street_price_cny",
     "unknown field"),
    ("gpus.toml", _set("gpu", "name", RTX4060, "compute_capability", _DELETE), f'"{RTX4060}"', "compute_capability",
     "missing"),
    ("gpus.toml", _set("gpu", "name", RTX4060, "markets", ["us"]), f'"{RTX4060}"', "availability_source", "sold"),
    ("gpus.toml", _set("gpu", "name", "GeForce RTX 5070", "markets", ["eu"]), '"GeForce RTX 5070"', "markets",
     "not a market"),
    ("market.toml", lambda d: d["price"][0].update(gpu="RTX 9999"), 'price[0] "RTX 9999"', "gpu",
     "not a catalog entry"),
    ("market.toml", lambda d: d["price"][0].update(currency="CNY"), "price[0]", "currency", "in USD"),
    ("market.toml", lambda d: d["price"][0].update(low=99_999), "price[0]", "low", "above amount"),
    ("market.toml", lambda d: d["price"][0].update(condition="refurbished"), "price[0]", "condition", "not one of"),
    ("market.toml", lambda d: d["price"][0].update(date="2026"), "price[0]", "date", "month like"),
    ("market.toml", lambda d: d["rest_of_pc"][0].update(date="2020-01"), "", "rest_of_pc", "no current"),
    ("market.toml", lambda d: d.update(as_of="soon"), "", "as_of", "date like"),
    ("market.toml", lambda d: d["market"].append(dict(d["market"][0])), 'market[2] "us"', "id", "listed already"),
    ("market.toml", lambda d: d["market"][1].update(convert_from="cn"), 'market[1] "cn"', "convert_from",
     "another market"),
    ("gpus.toml", _set("gpu", "name", RTX4060, "unverified", ["speed"]), f'"{RTX4060}"', "unverified", "not a field"),
    ("gpus.toml", _set("gpu", "name", RTX4060, "launch_year", 2016.5), f'"{RTX4060}"', "launch_year", "whole number"),
    ("gpus.toml", _set("gpu", "name", RTX4060, "pci_vendor_id", "0x1002"), f'"{RTX4060}"', "pci_vendor_id", "nvidia"),
    ("gpus.toml", _set("gpu", "name", "GeForce RTX 4060 Laptop GPU", "tdp_w_min", 200),
     '"GeForce RTX 4060 Laptop GPU"', "tdp_w_min", "above tdp_w_max"),
    ("gpus.toml", _set("gpu", "name", "GeForce RTX 4060 Laptop GPU", "desktop_equivalent", "RTX 9999"),
     '"GeForce RTX 4060 Laptop GPU"', "desktop_equivalent", "not a catalog entry"),
    ("gpus.toml", _set("gpu", "name", "GeForce RTX 4060 Ti 8GB", "name", "NVIDIA GeForce RTX 4060"),
     '"NVIDIA GeForce RTX 4060"', "name", "same model name"),
    ("goals.toml", _set("goal", "id", "kaggle", "comfortable_vram_gb", 2), '"kaggle"', "comfortable_vram_gb", "below"),
    ("goals.toml", _set("goal", "id", "kaggle", "examples_zh", ["只有一个"]), '"kaggle"', "examples_zh", "as many"),
    ("goals.toml", _set("goal", "id", "kaggle", "label_zh", _DELETE), '"kaggle"', "label_zh", "missing"),
    ("goals.toml", _set("goal", "id", "kaggle", "id", "learning"), '"learning"', "id", "earlier goal"),
    ("platforms.toml", _set("platform", "id", "colab", "id", "kaggle"), '"kaggle"', "id", "earlier platform"),
    ("currency.toml", _set("currency", "code", "USD", "code", "CNY"), '"CNY"', "code", "listed twice"),
    ("goals.toml", _set("goal", "id", "kaggle", "id", "Kaggle Comps"), '"Kaggle Comps"', "id", "kebab-case"),
    ("platforms.toml", _set("platform", "id", "colab", "cn_access", "maybe"), '"colab"', "cn_access", "not one of"),
    ("platforms.toml", _set("platform", "id", "colab", "url", "colab.google"), '"colab"', "url", "http"),
    ("platforms.toml", _set("platform", "id", "colab", "free_vram_gb", _DELETE), '"colab"', "free_vram_gb", "missing"),
    ("platforms.toml", _set("platform", "id", "colab", "checked", "recently"), '"colab"', "checked", "year"),
    ("platforms.toml", _set("platform", "id", "autodl", "offer", [{"gpu": "RTX 4090", "vram_gb": 24, "price_low": 3,
                                                                  "price_high": 2, "currency": "CNY", "date": "2026"}]),
     '"autodl" offer[0]', "price_high", "below price_low"),
    ("currency.toml", lambda d: d["rate"][0].update(quote="EUR"), "rate[0]", "quote", "not a listed"),
    ("currency.toml", lambda d: d["rate"][0].update(date="last week"), "rate[0]", "date", "date like"),
    ("currency.toml", lambda d: d["currency"].append(dict(d["currency"][0], code="EUR")), "", "rate",
     "no [[rate]] between"),
    # Rules declared on the records, read by wizard.schema: a table inside an entry, a form that
    # is text, an empty note.
    ("platforms.toml", _set("platform", "id", "autodl", "offer", [{"gpu": "RTX 4090", "vram_gb": 24, "price_low": 2,
                                                                  "price_high": 3, "currency": "CNY", "date": "2026",
                                                                  "colour": "red"}]),
     '"autodl" offer[0]', "colour", "unknown field"),
    ("platforms.toml", _set("platform", "id", "autodl", "offer", ["RTX 4090"]), '"autodl" offer[0]', "", "table"),
    ("gpus.toml", _set("gpu", "name", RTX4060, "compute_capability", 8.9), f'"{RTX4060}"', "compute_capability",
     "text"),
    ("gpus.toml", _set("gpu", "name", RTX4060, "vram_gb_options", [8, 0]), f'"{RTX4060}"', "vram_gb_options",
     "item 1: 0 is outside 1..2048"),
    ("market.toml", lambda d: d["price"][0].update(note=" "), "price[0]", "note", "must not be empty"),
    ("market.toml", lambda d: d.update(max_price_age_months=0), "", "max_price_age_months", "outside 1..60"),
    # Every price says how far it can be trusted; laptop prices are for laptop GPUs, estimates, and
    # a laptop GPU is either priced in a market or said to have no price there, not both.
    ("market.toml", lambda d: d["price"][0].pop("reliability"), "price[0]", "reliability", "missing"),
    ("market.toml", lambda d: d["price"][0].update(reliability="trusted"), "price[0]", "reliability", "not one of"),
    ("market.toml", lambda d: d["laptop_price"][0].update(gpu="GeForce RTX 5060"), 'laptop_price[0]', "gpu",
     "not a laptop GPU"),
    ("market.toml", lambda d: d["laptop_price"][0].update(estimate=False), "laptop_price[0]", "estimate",
     "must be true"),
    ("market.toml", lambda d: d["no_laptop_price"].append({"gpu": "GeForce RTX 5060 Laptop GPU", "market": "us",
                                                          "checked": "2026-12", "note": "none"}),
     "no_laptop_price", "gpu", "has a [[laptop_price]]"),
    # A Mac price is an Apple chip of the catalog with one of its memory sizes, in the market's own
    # currency; a market and kind of Mac is priced or said to have no price, not both.
    ("market.toml", lambda d: d["mac_price"][0].update(chip="GeForce RTX 5090"), 'mac_price[0] "Mac Studio"',
     "chip", "not an Apple chip"),
    ("market.toml", lambda d: d["mac_price"][0].update(memory_gb=40), 'mac_price[0] "Mac Studio"', "memory_gb",
     "not a memory size"),
    ("market.toml", lambda d: d["mac_price"][0].update(currency="CNY"), "mac_price[0]", "currency", "in USD"),
    ("market.toml", lambda d: d["mac_price"][0].update(form="tablet"), "mac_price[0]", "form", "not one of"),
    ("market.toml", lambda d: d["mac_price"][0].pop("source"), "mac_price[0]", "source", "missing"),
    ("market.toml", lambda d: d["no_mac_price"].append({"market": "us", "form": "desktop", "checked": "2026-12",
                                                       "note": "none"}),
     "no_mac_price", "form", "has a [[mac_price]]"),
]


@pytest.mark.parametrize("file, change, entry, field, reason", BROKEN,
                         ids=[f"{case[0]}:{case[3]}:{n}" for n, case in enumerate(BROKEN)])
def test_each_broken_field_is_named(copy, file, change, entry, field, reason):
    _edit(copy, file, change)
    with pytest.raises(KnowledgeError) as caught:
        load_knowledge(copy)
    error = caught.value
    message = str(error)
    assert error.file == file and message.startswith(file)
    assert entry in error.entry and entry in message
    assert error.field == field and (f"'{field}'" in message if field else "field" not in message)
    assert reason in error.reason


def test_entry_is_named_by_position_and_name(copy):
    index = _real_index(RTX4060)
    _edit(copy, "gpus.toml", _set("gpu", "name", RTX4060, "vram_gb", "lots"))
    with pytest.raises(KnowledgeError, match=re.escape(f'gpu[{index}] "{RTX4060}", field \'vram_gb\'')):
        load_knowledge(copy)


def test_missing_name_still_names_the_position(copy):
    index = _real_index(RTX4060)
    _edit(copy, "gpus.toml", _set("gpu", "name", RTX4060, "name", _DELETE))
    with pytest.raises(KnowledgeError) as caught:
        load_knowledge(copy)
    assert caught.value.entry == f"gpu[{index}]" and caught.value.field == "name"


@pytest.mark.parametrize("file", DATA_FILES)
def test_missing_file(copy, file):
    (copy / file).unlink()
    with pytest.raises(KnowledgeError, match=f"^{re.escape(file)}: file not found"):
        load_knowledge(copy)


@pytest.mark.parametrize("file", DATA_FILES)
def test_file_that_is_not_toml(copy, file):
    (copy / file).write_text("[[gpu]\nname = ", encoding="utf-8")
    with pytest.raises(KnowledgeError, match=f"^{re.escape(file)}: is not valid TOML"):
        load_knowledge(copy)


def test_file_that_is_not_utf8(copy):
    (copy / "goals.toml").write_bytes("label = '入门'".encode("gbk"))
    with pytest.raises(KnowledgeError, match=r"^goals\.toml: is not UTF-8"):
        load_knowledge(copy)


def test_file_without_entries(copy):
    (copy / "platforms.toml").write_text("# nothing yet\n", encoding="utf-8")
    with pytest.raises(KnowledgeError, match=r"platforms\.toml, field 'platform': needs at least one"):
        load_knowledge(copy)


def test_entry_that_is_not_a_table(copy):
    (copy / "goals.toml").write_text('goal = ["learning"]\n', encoding="utf-8")
    with pytest.raises(KnowledgeError, match=r"goals\.toml, goal\[0\]: must be a table"):
        load_knowledge(copy)


# --- the core stays free of the UI -----------------------------------------------------------


def test_knowledge_does_not_import_textual():
    code = "import sys, wizard.knowledge.load as k; k.load_knowledge(); print('textual' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            cwd=Path(__file__).resolve().parent.parent)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
