"""Cloud GPUs: the platforms that fit the goal, free first and reachable first."""

from __future__ import annotations

from wizard.advise.recommendation import PlatformPick
from wizard.knowledge.goals import Goal
from wizard.knowledge.records import Knowledge, Platform
from wizard.text.i18n import t

# ----------------------------------------------------------------------------- clouds ---

def rank_platforms(knowledge: Knowledge, goal: Goal, lang: str,
                   region_cn: bool) -> tuple[PlatformPick, ...]:
    """Cloud platforms best first: enough GPU memory for the goal, reachable from the user's
    region (mainland China: no VPN needed), free before paid, then the data file's order."""
    def key(item: tuple[int, Platform]) -> tuple:
        index, p = item
        fits = p.max_vram_gb >= goal.min_vram_gb
        if region_cn:
            blocked = p.cn_access == "vpn"
            access = CN_ACCESS_RANK.get(p.cn_access, 2)
        else:
            blocked = False
            access = 0 if p.region == "global" else 1
        return (not fits, blocked, p.kind == "paid", access, index)

    ranked = sorted(enumerate(knowledge.platforms), key=key)
    return tuple(_platform_pick(p, goal, lang, region_cn) for _, p in ranked)


CN_ACCESS_RANK = {"direct": 0, "slow": 1, "unknown": 2, "vpn": 3}


def _platform_pick(p: Platform, goal: Goal, lang: str, region_cn: bool) -> PlatformPick:
    parts = [p.summary(lang)]
    if region_cn and p.needs_vpn_from_cn:
        parts.append(t("advice.platform.vpn", lang))
    return PlatformPick(id=p.id, name=p.display_name(lang), url=p.url,
                        why=t("advice.platform.sep", lang).join(parts), kind=p.kind)


def best_free_vram(knowledge: Knowledge, platforms: tuple[PlatformPick, ...], goal: Goal) -> float:
    """The free GPU memory of the best-ranked free platform that fits, else the largest free one."""
    by_id = {p.id: p for p in knowledge.platforms}
    free = [by_id[p.id] for p in platforms if p.kind != "paid" and p.id in by_id]
    for p in free:
        if (p.free_vram_gb or 0) >= goal.min_vram_gb:
            return float(p.free_vram_gb or 0)
    return max((float(p.free_vram_gb or 0) for p in free), default=0.0)
