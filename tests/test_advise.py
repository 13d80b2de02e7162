"""The advice engine over the recorded machines × goals × budgets × form factors, plus properties."""

import dataclasses
import re
import tomllib
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.recorded import MACHINE_FILES, machine_path
from wizard.advise import PICK_SEGMENTS, Recommendation, advise, gpu_candidates, rank_platforms
from wizard.answers import Answers
from wizard.diagnosis.diagnose import diagnose
from wizard.diagnosis.findings import Finding
from wizard.knowledge.load import load_knowledge
from wizard.probe.facts import Gpu, Machine, NvidiaInfo, TorchInfo, machine_from_dict
from wizard.report.fields import VERDICTS

CJK = re.compile(r"[\u4e00-\u9fff]")


def load(name: str) -> Machine:
    with machine_path(name).open("rb") as fh:
        return machine_from_dict(tomllib.load(fh)["machine"])


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


@pytest.fixture(scope="module")
def machines():
    return {path.stem: load(path.stem) for path in MACHINE_FILES}


def plain_machine(**changes) -> Machine:
    """A laptop with no GPU and no torch: the blank page most tests start from."""
    base = Machine(os="Linux", os_version="Ubuntu 24.04", arch="x86_64", python_version="3.12.3",
                   cpu_model="Intel Core i5", cpu_cores=4, cpu_threads=8, ram_gb=16.0,
                   disk_free_gb=100.0, chassis="laptop", nvidia=NvidiaInfo(status="no-library"))
    return dataclasses.replace(base, **changes)


def nvidia(name: str, vram: float, cc: str = "8.9") -> Gpu:
    return Gpu(vendor="nvidia", name=name, source="nvml", vram_gb=vram, compute_capability=cc)


CUDA_TORCH = TorchInfo(status="ok", version="2.9.0+cu128", build="cuda", cuda_available=True,
                       device_count=1)


def answers(**changes) -> Answers:
    return dataclasses.replace(Answers("yes", "yes", "desktop", 1000, "USD", "learning"), **changes)


def run(machine, knowledge, lang="en", findings=None, **answer_changes) -> Recommendation:
    found = diagnose(machine, lang) if findings is None else findings
    return advise(answers(**answer_changes), machine, knowledge, lang, found)


# ------------------------------------------------------------------ the recorded machines ---

def test_the_recorded_machines_are_there():
    assert {"laptop-4060", "h200-server", "apple-m2", "vm-no-gpu", "desktop-1080ti"} <= {
        p.stem for p in MACHINE_FILES}


@pytest.mark.parametrize("name, changes, verdict", [
    # A working GPU that is big enough: say so, sell nothing.
    ("h200-server", dict(form_factor="server", goal="research", budget_amount=100000), "use-current-gpu"),
    ("wsl2", dict(goal="learning", budget_amount=5000), "use-current-gpu"),
    ("desktop-1080ti", dict(goal="learning"), "fix-setup"),  # torch lacks sm_61 kernels
    ("apple-m2", dict(form_factor="laptop", has_nvidia="no", goal="learning"), "use-current-gpu"),
    ("amd-rx7900", dict(has_nvidia="no", goal="image-generation"), "use-current-gpu"),
    # A GPU that would do, but the setup is broken: fix it first.
    ("laptop-4060", dict(form_factor="laptop", goal="learning"), "fix-setup"),
    ("version-mismatch", dict(goal="llm-finetune", budget_amount=5000), "fix-setup"),
    ("nouveau", dict(goal="learning"), "fix-setup"),
    ("container-no-gpu", dict(goal="learning", form_factor="server"), "fix-setup"),
    # No usable GPU.
    ("vm-no-gpu", dict(need_gpu="no"), "no-gpu-needed"),
    ("vm-no-gpu", dict(form_factor="laptop", budget_amount=0), "use-free-cloud"),
    ("vm-no-gpu", dict(form_factor="desktop", budget_amount=1000), "upgrade-desktop"),
    ("vm-no-gpu", dict(form_factor="laptop", budget_amount=3000), "buy-desktop"),
    ("vm-no-gpu", dict(form_factor="laptop", budget_amount=300), "use-free-cloud"),
    ("vm-no-gpu", dict(form_factor="server", budget_amount=3000), "use-free-cloud"),
    # The GPU is too small for the goal: a desktop can take a bigger one, a laptop can't.
    ("desktop-1080ti", dict(goal="research", budget_amount=1000), "upgrade-desktop"),
    ("laptop-4060", dict(form_factor="laptop", goal="research", budget_amount=5000), "buy-desktop"),
    ("apple-m2", dict(form_factor="desktop", has_nvidia="no", goal="research", budget_amount=5000),
     "buy-desktop"),
])
def test_verdicts_for_recorded_machines(machines, knowledge, name, changes, verdict):
    rec = run(machines[name], knowledge, **changes)
    assert rec.verdict == verdict, rec.headline


def test_a_sufficient_gpu_gets_no_shopping_list(machines, knowledge):
    rec = run(machines["h200-server"], knowledge, form_factor="server", goal="research",
              budget_amount=100000)
    assert rec.gpus == ()
    # The memory as `check` and the wizard show it (the driver's 140.4), not the datasheet's 141.
    assert "H200" in rec.headline and "140 GB" in rec.headline


def test_the_cpu_wheel_on_an_nvidia_laptop_is_a_setup_to_fix(machines, knowledge):
    rec = run(machines["laptop-4060"], knowledge, form_factor="laptop", goal="learning", findings=[])
    assert rec.verdict == "fix-setup"
    assert "RTX 4060 Laptop GPU" in rec.headline
    assert "PyTorch" in rec.headline


def test_findings_with_errors_come_first_in_the_reasons(knowledge, machines):
    error = Finding("nvidia-version-mismatch", "error", "Reboot needed", "The driver was updated.",
                    "Restart the computer.")
    second = Finding("nvidia-no-permission", "error", "No access", "Not in the video group.", "Log in again.")
    rec = run(machines["version-mismatch"], knowledge, findings=[error, second])
    assert rec.verdict == "fix-setup"
    assert "reboot needed" in rec.headline  # the title, read mid-sentence
    # The first error is the next step (said with its fix above the reasons); the reasons add
    # the ones after it, and do not repeat it.
    assert (rec.action, rec.action_finding) == ("fix", "nvidia-version-mismatch")
    assert any("Log in again." in r for r in rec.reasons)
    assert not any("Restart the computer." in r for r in rec.reasons)


def test_a_12_gb_card_read_as_11_99_gb_is_a_12_gb_card(machines, knowledge):
    wsl = machines["wsl2"]
    assert wsl.gpus[0].vram_gb < 12
    rec = run(wsl, knowledge, goal="research")  # needs 12 GB
    assert rec.verdict == "use-current-gpu"


def test_apple_silicon_uses_mps_and_shared_memory(machines, knowledge):
    rec = run(machines["apple-m2"], knowledge, has_nvidia="no", form_factor="laptop", goal="learning")
    text = " ".join(rec.reasons)
    assert "mps" in text and "CUDA" in text
    rec = run(machines["apple-m2"], knowledge, has_nvidia="no", form_factor="desktop",
              goal="research", budget_amount=5000)
    assert rec.verdict != "upgrade-desktop"  # a Mac takes no graphics card
    assert any("Mac" in r for r in rec.reasons)


def test_a_laptop_is_never_told_to_add_a_card(machines, knowledge):
    rec = run(machines["laptop-4060"], knowledge, form_factor="laptop", goal="research",
              budget_amount=5000)
    assert rec.verdict == "buy-desktop"
    assert any("laptop" in r.lower() and "can't" in r for r in rec.reasons)
    base = knowledge.desktop_base("USD").amount
    assert all(p.price + base <= 5000 for p in rec.gpus)


def test_a_server_over_ssh_is_pointed_at_its_administrator(knowledge):
    server = plain_machine(chassis="server")
    rec = run(server, knowledge, form_factor="server", goal="llm-finetune", budget_amount=5000)
    assert rec.verdict in ("use-free-cloud", "rent-cloud")
    assert rec.gpus == ()
    assert any("administrator" in r for r in rec.reasons)
    assert any("server" in r and "typing" in r for r in rec.reasons)


def test_no_budget_means_free_cloud_and_no_picks(knowledge):
    rec = run(plain_machine(), knowledge, form_factor="desktop", budget_amount=0)
    assert rec.verdict == "use-free-cloud"
    assert rec.gpus == ()
    assert rec.platforms and all(p.kind != "paid" for p in rec.platforms)


def test_too_small_a_budget_says_what_the_cheapest_option_costs(knowledge):
    rec = run(plain_machine(chassis="desktop"), knowledge, goal="research", budget_amount=100)
    assert rec.verdict in ("use-free-cloud", "rent-cloud")
    assert rec.gpus == ()
    cheapest = rec.cheapest_adequate
    assert cheapest is not None and cheapest.price > 100 and cheapest.vram_gb >= 12
    assert "$100" in rec.headline and cheapest.name in rec.headline
    assert f"${cheapest.price:,.0f}" in rec.headline
    assert rec.platforms  # and offers the cloud


def test_the_cheapest_option_is_really_the_cheapest(knowledge):
    goal = knowledge.goal("research")
    rec = run(plain_machine(chassis="desktop"), knowledge, goal="research", budget_amount=100)
    prices = [c.price for c in gpu_candidates(knowledge, goal, "USD", "en")]
    assert rec.cheapest_adequate.price == min(prices)


def test_unsure_answers_get_defaults_that_the_headline_admits(knowledge):
    rec = advise(Answers(goal="learning"), plain_machine(chassis="vm"), knowledge, "en", [])
    assert set(rec.assumed) == {"need_gpu", "has_nvidia", "form_factor", "budget_amount"}
    assert rec.form_factor == "laptop"  # a VM can't tell: assume no card can be added
    # ... but never calls what it can't see "a laptop": the VM hides the computer underneath.
    assert "not sure" in rec.headline and "no set budget" in rec.headline
    assert "a laptop" not in rec.headline and "VM, container or WSL" in rec.headline
    zh = advise(Answers(goal="learning"), plain_machine(chassis="vm"), knowledge, "zh", [])
    assert "不确定" in zh.headline and "笔记本" not in zh.headline and "虚拟机" in zh.headline
    laptop = advise(Answers(goal="learning"), plain_machine(chassis="laptop"), knowledge, "en", [])
    assert "a laptop" in laptop.headline


def test_a_server_with_a_big_gpu_is_not_sent_to_small_free_cloud_gpus(machines, knowledge):
    rec = run(machines["h200-server"], knowledge, form_factor="server", goal="llm-finetune",
              budget_amount=2000)
    assert rec.verdict == "use-current-gpu" and rec.platforms == ()
    # A GPU that is tight for the goal still hears of bigger cloud GPUs, and only bigger ones.
    small = run(machines["wsl2"], knowledge, form_factor="desktop", goal="llm-finetune",
                budget_amount=2000)
    local = small.reasons and machines["wsl2"].nvidia_gpus()[0].vram_gb
    assert small.verdict == "use-current-gpu" and small.platforms
    assert all(knowledge.platform(p.id).max_vram_gb > local for p in small.platforms)


def test_unsure_form_factor_follows_the_detected_chassis(knowledge):
    rec = advise(answers(form_factor="unsure"), plain_machine(chassis="desktop"), knowledge, "en", [])
    assert rec.form_factor == "desktop" and rec.verdict == "upgrade-desktop"


def test_unsure_budget_lists_the_cheapest_cards_for_reference(knowledge):
    rec = run(plain_machine(chassis="desktop"), knowledge, budget_amount=None, goal="kaggle")
    assert rec.verdict == "use-free-cloud"
    prices = [p.price for p in rec.gpus]
    assert prices == sorted(prices) and len(prices) == 3


def test_answers_that_disagree_with_the_hardware_are_pointed_out(machines, knowledge):
    rec = run(machines["vm-no-gpu"], knowledge, has_nvidia="yes")
    assert any("none was found" in r for r in rec.reasons)
    rec = run(machines["h200-server"], knowledge, has_nvidia="no", form_factor="server")
    assert any("H200" in r and "no NVIDIA" in r for r in rec.reasons)


def test_several_gpus_are_limited_by_the_smallest(knowledge):
    machine = plain_machine(chassis="desktop", nvidia=NvidiaInfo(status="ok", driver_version="570.1"),
                            gpus=(nvidia("NVIDIA GeForce RTX 3090", 24.0, "8.6"),
                                  nvidia("NVIDIA GeForce RTX 3060", 12.0, "8.6")),
                            torch=CUDA_TORCH)
    rec = run(machine, knowledge, goal="llm-finetune", findings=[])
    assert rec.verdict == "use-current-gpu"
    assert "RTX 3090" in rec.headline
    assert any("2 GPUs" in r and "12 GB" in r for r in rec.reasons)


def test_a_multi_gpu_wish_gets_the_goal_note_and_the_memory_caveat(knowledge):
    rec = run(plain_machine(chassis="desktop"), knowledge, goal="llm-inference", budget_amount=4000)
    assert rec.verdict == "upgrade-desktop"
    note = knowledge.goal("llm-inference").multi_gpu_note_en
    assert note in rec.reasons
    assert any("not one big card" in r for r in rec.reasons)


def test_a_desktop_upgrade_names_the_power_supply(knowledge):
    rec = run(plain_machine(chassis="desktop"), knowledge, goal="learning", budget_amount=1000)
    assert rec.verdict == "upgrade-desktop"
    assert any("PCIe" in r and " W" in r for r in rec.reasons)


def test_prices_say_their_kind_and_date(knowledge):
    rec = run(plain_machine(chassis="desktop"), knowledge, goal="kaggle", budget_amount=8000,
              budget_currency="CNY", lang="zh")
    assert rec.gpus
    for pick in rec.gpus:
        assert pick.currency == "CNY" and pick.price_date and pick.price_kind
    assert any("价" in r and "购买前" in r for r in rec.reasons)


def test_platforms_are_ranked_for_the_region(knowledge):
    goal = knowledge.goal("learning")
    cn = rank_platforms(knowledge, goal, "zh", region_cn=True)
    ranked = [knowledge.platform(p.id) for p in cn]
    # From mainland China, of the platforms that fit the goal: those reachable without a VPN
    # first, the free ones of them first, and of those the ones known to be reachable directly.
    fits = [p for p in ranked if p.max_vram_gb >= goal.min_vram_gb]
    assert ranked[:len(fits)] == fits, [p.id for p in ranked]
    reachable = [p for p in fits if not p.needs_vpn_from_cn]
    assert reachable and fits[:len(reachable)] == reachable, [p.id for p in fits]
    assert any(p.needs_vpn_from_cn for p in fits)        # else the line above says nothing
    free = [p for p in reachable if p.kind != "paid"]
    assert free and reachable[:len(free)] == free, [p.id for p in reachable]
    access = [["direct", "slow", "unknown"].index(p.cn_access) for p in free]
    assert access == sorted(access) and access[0] == 0
    world = rank_platforms(knowledge, goal, "en", region_cn=False)
    assert knowledge.platform(world[0].id).region == "global"
    assert any("VPN" in p.why for p in cn if knowledge.platform(p.id).needs_vpn_from_cn)


def test_the_torch_command_comes_from_the_install_choice(machines, knowledge):
    # Without PyTorch, installing it is the action: the command is the choice's.
    machine = dataclasses.replace(machines["desktop-1080ti"], torch=TorchInfo(status="not-installed"))
    choice = SimpleNamespace(command="pip install torch --index-url https://download.pytorch.org/whl/cu126",
                             reason="", variant="cu126", torch_version="2.13.0")
    rec = advise(answers(), machine, knowledge, "en", [], choice)
    assert (rec.action, rec.torch_command, rec.torch_target) == ("install", choice.command, "cuda")
    none = SimpleNamespace(command=None, reason="no build for Python 3.15 yet")
    rec = advise(answers(), machine, knowledge, "en", [], none)
    assert rec.torch_command is None
    assert any("Python 3.15" in r for r in rec.reasons)


def test_languages_read_as_their_language(machines, knowledge):
    for name, machine in machines.items():
        zh = run(machine, knowledge, lang="zh", goal="llm-finetune", budget_amount=6000,
                 budget_currency="CNY", form_factor="laptop")
        en = run(machine, knowledge, lang="en", goal="llm-finetune", budget_amount=6000,
                 budget_currency="CNY", form_factor="laptop")
        assert CJK.search(zh.headline), name
        assert all(CJK.search(r) for r in zh.reasons if not r.startswith("Fix")), name
        english = en.headline + " ".join(en.reasons)
        # English may quote Chinese platform names, never Chinese sentences.
        assert not re.search(r"[\u4e00-\u9fff]{6,}", english), name


def test_advice_is_deterministic(machines, knowledge):
    for machine in machines.values():
        assert run(machine, knowledge) == run(machine, knowledge)


# ------------------------------------------------------------------------- the full grid ---

GOALS = ("learning", "kaggle", "vision-apps", "image-generation", "llm-inference", "llm-finetune",
         "research")
BUDGETS = ((None, "USD"), (0, "USD"), (150, "USD"), (700, "USD"), (2500, "USD"), (3000, "CNY"),
           (12000, "CNY"))
FORMS = ("desktop", "laptop", "server", "unsure")


@pytest.mark.parametrize("path", MACHINE_FILES, ids=lambda p: p.stem)
def test_the_whole_table_keeps_its_promises(path, knowledge):
    machine = load(path.stem)
    for lang in ("en", "zh"):
        findings = diagnose(machine, lang)
        for goal in GOALS:
            for amount, currency in BUDGETS:
                for form in FORMS:
                    a = Answers("yes", "unsure", form, amount, currency, goal)
                    rec = advise(a, machine, knowledge, lang, findings)
                    check_promises(rec, a, machine, knowledge)


def check_promises(rec: Recommendation, a: Answers, machine: Machine, knowledge) -> None:
    goal = knowledge.goal(a.goal)
    where = f"{a} → {rec.verdict}: {rec.headline}"
    assert rec.verdict in VERDICTS, where
    assert rec.headline and "\n" not in rec.headline and "{" not in rec.headline, where
    assert not any("{" in r for r in rec.reasons), where
    assert len(rec.gpus) <= 3 and len(rec.platforms) <= 3, where
    for pick in rec.gpus:
        entry = knowledge.gpu(pick.name)
        assert pick.vram_gb >= goal.min_vram_gb, where                       # enough memory
        assert entry.segment in PICK_SEGMENTS and pick.form_factor == "desktop", where
        assert pick.currency == a.budget_currency, where
        if a.budget_amount is not None:
            assert pick.price <= a.budget_amount, where                      # within budget
    if rec.verdict == "upgrade-desktop":
        assert rec.form_factor == "desktop" and machine.os != "Darwin", where
    if rec.verdict in ("upgrade-desktop", "buy-desktop"):
        assert rec.gpus, where
    if rec.form_factor == "server":
        assert rec.verdict not in ("upgrade-desktop", "buy-desktop", "buy-laptop"), where
    if rec.verdict in ("use-free-cloud", "rent-cloud") and a.budget_amount:
        assert rec.gpus == (), where                                         # says so, no picks
        if rec.cheapest_adequate is not None:
            assert rec.cheapest_adequate.price > 0, where


# ---------------------------------------------------------------------------- properties ---

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from([p.stem for p in MACHINE_FILES]),
    goal=st.sampled_from(GOALS),
    amount=st.one_of(st.none(), st.integers(0, 60000), st.floats(0, 60000, allow_nan=False)),
    currency=st.sampled_from(("USD", "CNY")),
    form=st.sampled_from(FORMS),
    need=st.sampled_from(("yes", "unsure", "no")),
    lang=st.sampled_from(("en", "zh")),
)
def test_properties_over_random_answers(knowledge, machines, name, goal, amount, currency, form,
                                        need, lang):
    machine = machines[name]
    a = Answers(need, "unsure", form, amount, currency, goal)
    rec = advise(a, machine, knowledge, lang, diagnose(machine, lang))
    check_promises(rec, a, machine, knowledge)
    g = knowledge.goal(goal)
    if amount is not None and rec.verdict not in ("use-current-gpu", "fix-setup", "no-gpu-needed") \
            and rec.form_factor != "server":
        affordable = [c for c in gpu_candidates(knowledge, g, currency, lang) if c.price <= amount]
        if not affordable:
            # Nothing fits: the verdict says so instead of picking.
            assert rec.gpus == () and rec.verdict in ("use-free-cloud", "rent-cloud")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(vram=st.floats(0.5, 200), goal=st.sampled_from(GOALS), working=st.booleans())
def test_a_working_gpu_with_enough_memory_is_always_used(knowledge, vram, goal, working):
    machine = plain_machine(chassis="desktop", nvidia=NvidiaInfo(status="ok", driver_version="570.1"),
                            gpus=(nvidia("NVIDIA Mystery Accelerator", vram),),
                            torch=CUDA_TORCH if working else None)
    rec = advise(answers(goal=goal, budget_amount=5000), machine, knowledge, "en", [])
    if vram >= knowledge.goal(goal).min_vram_gb:
        assert rec.verdict == "use-current-gpu" and rec.gpus == ()
    else:
        assert rec.verdict != "use-current-gpu"


@pytest.mark.parametrize("name, chassis", [("vm-no-gpu", "vm"), ("container-no-gpu", "container"), ("wsl2", "wsl")])
def test_advice_for_the_physical_computer_says_it_sees_only_a_guest(knowledge, name, chassis):
    machine = load(name)
    assert machine.chassis == chassis
    answers = Answers("yes", "unsure", "desktop", 800, "USD", "kaggle")
    for lang, word in (("en", {"vm": "virtual machine", "container": "container", "wsl": "WSL"}[chassis]),
                       ("zh", {"vm": "虚拟机", "container": "容器", "wsl": "WSL"}[chassis])):
        rec = advise(answers, machine, knowledge, lang, diagnose(machine, lang))
        assert any(word in reason for reason in rec.reasons), rec.reasons
    on_metal = advise(answers, load("desktop-1080ti"), knowledge, "en", ())
    assert not any("virtual machine" in reason for reason in on_metal.reasons)


@pytest.mark.parametrize("title, expected", [
    ("This PyTorch has no kernels for your GPU", "this PyTorch has no kernels for your GPU"),
    ("PyTorch is the CPU-only build", "PyTorch is the CPU-only build"),
    ("NVIDIA driver installed but not loaded", "NVIDIA driver installed but not loaded"),
    ("Container started without GPU access", "container started without GPU access"),
    ("Docker has no GPU", "Docker has no GPU"),
    ("显卡驱动没有加载", "显卡驱动没有加载"),
])
def test_a_finding_title_reads_right_in_the_middle_of_a_sentence(title, expected):
    from wizard.advise import mid_sentence

    assert mid_sentence(title) == expected


@pytest.mark.parametrize("name, says, never", [
    ("vm-no-gpu", "has no NVIDIA GPU", "the GPU found here is yours"),
    ("laptop-4060", "the GPU found here is yours", "has no NVIDIA GPU"),
])
def test_an_unsure_nvidia_answer_is_assumed_from_what_was_found(knowledge, machines, name, says, never):
    rec = run(machines[name], knowledge, has_nvidia="unsure")
    assert "has_nvidia" in rec.assumed
    assert says in rec.headline and never not in rec.headline


# --- "I don't need a GPU" against the goal -------------------------------------------------

HEAVY_GOALS = ("kaggle", "image-generation", "llm-inference", "llm-finetune", "research")


@pytest.mark.parametrize("goal", HEAVY_GOALS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_no_on_step_one_is_answered_by_a_goal_that_needs_a_gpu(knowledge, goal, lang):
    rec = advise(answers(need_gpu="no", goal=goal, form_factor="laptop"), plain_machine(), knowledge, lang)
    entry = next(g for g in knowledge.goals if g.id == goal)
    assert rec.verdict in ("use-free-cloud", "rent-cloud")
    assert rec.gpus == ()                                   # "no" means no shopping list
    never = {"en": ["don't need a GPU for", "No GPU needed"], "zh": ["用不着 GPU", "暂时不需要"]}[lang]
    assert not any(phrase in rec.headline for phrase in never), rec.headline
    assert f"{entry.min_vram_gb:g} GB" in rec.headline
    assert any(f"{entry.min_vram_gb:g} GB" in r for r in rec.reasons)


@pytest.mark.parametrize("goal", ["learning", "vision-apps"])
def test_a_no_stands_for_goals_a_cpu_can_start(knowledge, goal):
    rec = advise(answers(need_gpu="no", goal=goal), plain_machine(), knowledge, "en")
    assert rec.verdict == "no-gpu-needed"


def test_a_no_with_a_capable_gpu_here_is_told_to_use_it_for_a_heavy_goal(knowledge):
    machine = plain_machine(gpus=(nvidia("NVIDIA GeForce RTX 4090", 24.0),), torch=CUDA_TORCH,
                            nvidia=NvidiaInfo(status="ok", driver_version="570.86.10",
                                              cuda_driver_version="12.8"))
    rec = advise(answers(need_gpu="no", goal="llm-inference"), machine, knowledge, "en")
    assert rec.verdict == "use-current-gpu"
    assert any("You answered that you don't need a GPU" in r for r in rec.reasons)


def test_the_goal_steps_ram_warning_reaches_the_result(knowledge):
    goal = next(g for g in knowledge.goals if g.id == "llm-inference")
    machine = plain_machine(ram_gb=goal.min_ram_gb / 2, gpus=(nvidia("NVIDIA GeForce RTX 4090", 24.0),),
                            torch=CUDA_TORCH, nvidia=NvidiaInfo(status="ok", driver_version="570.86.10",
                                                                cuda_driver_version="12.8"))
    rec = advise(answers(goal="llm-inference"), machine, knowledge, "en")
    assert any(f"{goal.min_ram_gb:g} GB or more" in r and "RAM" in r for r in rec.reasons)
    enough = dataclasses.replace(machine, ram_gb=goal.min_ram_gb * 2)
    assert not any("RAM" in r for r in advise(answers(goal="llm-inference"), enough, knowledge, "en").reasons)


def test_a_laptop_user_is_told_the_whole_pc_does_not_fit_even_when_the_card_would(knowledge):
    goal = knowledge.goal("kaggle")
    cheapest = min(gpu_candidates(knowledge, goal, "USD", "en"), key=lambda p: p.price)
    budget = cheapest.price + 50                       # the card alone fits, a PC around it does not
    rec = run(plain_machine(), knowledge, goal="kaggle", budget_amount=budget, form_factor="laptop")
    assert rec.gpus == () and rec.cheapest_adequate.name == cheapest.name
    assert rec.cheapest_total > budget > rec.cheapest_adequate.price
    desk = run(plain_machine(chassis="desktop"), knowledge, goal="kaggle", budget_amount=cheapest.price - 1,
               form_factor="desktop")
    assert desk.cheapest_total == desk.cheapest_adequate.price   # a desktop only needs the card


def test_the_advice_for_a_gpu_the_newest_pytorch_dropped_says_its_support_ended(machines, knowledge):
    from wizard.pytorch.choose import choose_for_machine

    pascal = machines["desktop-1080ti"]
    choice = choose_for_machine(pascal, "en")
    rec = advise(Answers(need_gpu="yes", has_nvidia="yes", form_factor="desktop", goal="learning"),
                 pascal, knowledge, lang="en", findings=diagnose(pascal, "en"), torch_choice=choice)
    ended = [r for r in rec.reasons if "no longer supports this GPU" in r]
    assert ended and choice.torch_version in ended[0]
    turing = machines["laptop-4060"]
    rec = advise(Answers(need_gpu="yes", has_nvidia="yes", form_factor="laptop", goal="learning"),
                 turing, knowledge, lang="en", findings=diagnose(turing, "en"),
                 torch_choice=choose_for_machine(turing, "en"))
    assert not any("no longer supports this GPU" in r for r in rec.reasons)


def test_a_hidden_host_is_not_called_a_laptop_when_a_desktop_is_suggested(knowledge):
    rec = advise(Answers(need_gpu="yes", goal="learning", budget_amount=3000, budget_currency="USD"),
                 plain_machine(chassis="vm"), knowledge, "en", [])
    assert rec.verdict == "buy-desktop"
    assert "laptop" not in rec.headline.lower() and "VM, container or WSL" in rec.headline
    laptop = advise(Answers(need_gpu="yes", goal="learning", budget_amount=3000, budget_currency="USD",
                            form_factor="laptop"), plain_machine(chassis="laptop"), knowledge, "en", [])
    assert laptop.verdict == "buy-desktop" and "laptop's GPU" in laptop.headline
