"""Geometry of the HTML report's inline SVG charts. The template draws them; nothing here knows about markup."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ascend_feasibility.analyzer.core.models import SEVERITIES, DaysRange

LABEL_WIDTH = 150
PLOT_WIDTH = 430
ROW_HEIGHT = 28
BAR_HEIGHT = 18
TOP = 10
AXIS_HEIGHT = 24


@dataclass(frozen=True)
class Segment:
    x: float
    width: float
    css_class: str
    value: float


@dataclass(frozen=True)
class Row:
    key: str
    y: float
    segments: list[Segment]
    total_label: str
    label_x: float


@dataclass(frozen=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    label_width: int
    rows: list[Row]
    ticks: list[Tick]
    axis_y: float


def findings_chart(counts: dict[str, dict[str, int]]) -> Chart:
    """One bar per domain, stacked by severity (worst first)."""
    totals = {domain: sum(by_severity.values()) for domain, by_severity in counts.items()}
    scale = _Scale(max(totals.values(), default=0))
    rows = []
    for index, (domain, by_severity) in enumerate(counts.items()):
        x, segments = 0.0, []
        for severity in SEVERITIES:
            value = by_severity.get(severity, 0)
            if value:
                width = scale.width(value)
                segments.append(Segment(LABEL_WIDTH + x, width, f"sev-{severity}", value))
                x += width
        rows.append(Row(domain, _row_y(index), segments, str(totals[domain]), LABEL_WIDTH + x + 6))
    return _chart(rows, scale)


def effort_chart(ranges: dict[str, DaysRange]) -> Chart:
    """One bar per key: solid up to the low estimate, hatched from low to high."""
    scale = _Scale(max((r.high_days for r in ranges.values()), default=0))
    rows = []
    for index, (key, days) in enumerate(ranges.items()):
        low, high = scale.width(days.low_days), scale.width(days.high_days)
        segments = [Segment(LABEL_WIDTH, low, "effort-low", days.low_days),
                    Segment(LABEL_WIDTH + low, max(high - low, 0.0), "effort-range", days.high_days)]
        rows.append(Row(key, _row_y(index), segments, "", LABEL_WIDTH + high + 6))
    return _chart(rows, scale)


class _Scale:
    def __init__(self, maximum: float) -> None:
        self.step = _nice_step(maximum)
        self.top = max(self.step * math.ceil(maximum / self.step), self.step) if maximum > 0 else 1.0

    def width(self, value: float) -> float:
        return round(PLOT_WIDTH * value / self.top, 2)

    def ticks(self) -> list[Tick]:
        count = round(self.top / self.step)
        return [Tick(LABEL_WIDTH + self.width(i * self.step), _tick_label(i * self.step)) for i in range(count + 1)]


def _nice_step(maximum: float) -> float:
    if maximum <= 0:
        return 1.0
    raw = maximum / 4
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)


def _tick_label(value: float) -> str:
    return f"{value:g}"


def _row_y(index: int) -> float:
    return TOP + index * ROW_HEIGHT


def _chart(rows: list[Row], scale: _Scale) -> Chart:
    axis_y = TOP + len(rows) * ROW_HEIGHT
    return Chart(LABEL_WIDTH + PLOT_WIDTH + 60, int(axis_y + AXIS_HEIGHT), LABEL_WIDTH, rows, scale.ticks(), axis_y)
