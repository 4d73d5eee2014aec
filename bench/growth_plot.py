"""Draw the growth benchmarks' figures (docs/growth.json) as one SVG of log-log panels, wave
against its floor, and print them as a Markdown table. Same figures in, same bytes out.

Usage: python bench/growth_plot.py [FIGURES.json [OUT.svg]]   (default docs/growth.json, docs/growth.svg)
Figures: WAVE_BENCH_GROWTH=full WAVE_BENCH_GROWTH_OUT=docs/growth.json \\
         python -m pytest tests/bench/test_bench_growth.py tests/bench/test_bench_glob.py -m bench -n 0
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# (figures key, title, x label, wave figure, floor figure, floor's name)
PANELS = (
    (
        "resume_process",
        "wave -p --continue: CPU",
        "turns",
        "wave_cpu",
        "floor_cpu",
        "floor_resume.py",
    ),
    (
        "resume_process",
        "wave -p --continue: peak RSS",
        "turns",
        "wave_rss",
        "floor_rss",
        "floor_resume.py",
    ),
    (
        "restore",
        "session restore (in process)",
        "turns",
        "restore",
        "read_parse",
        "read + json.loads",
    ),
    ("request", "one request: turn CPU", "turns", "turn", "encode", "encode the body"),
    ("fork", "turn + extraction fork: CPU", "turns", "fork", "encode", "encode both requests"),
    ("grep_files_with_matches", "Grep files_with_matches", "files", "wave", "floor", "rg"),
    ("grep_content", "Grep content", "files", "wave", "floor", "rg"),
    ("glob", "Glob **/*.py", "files", "wave", "floor", "rg --files"),
)
W, H, PAD, COLS = 330, 210, 44, 2
WAVE_COLOR, FLOOR_COLOR = "#1f6feb", "#8b949e"


def _unit(figure: str) -> tuple[float, str]:
    return (1 / (1024 * 1024), "MiB") if figure.endswith("rss") else (1000.0, "ms")


def _ticks(low: float, high: float) -> list[float]:
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    return [10.0**e for e in range(first, last + 1)]


def _panel(data: dict[str, dict[str, float]], spec: tuple[str, ...], x0: int, y0: int) -> list[str]:
    _, title, xlabel, wave_key, floor_key, floor_name = spec
    scale, unit = _unit(wave_key)
    sizes = sorted(int(s) for s in data)
    series = {
        "wave": [data[str(s)][wave_key] * scale for s in sizes],
        floor_name: [data[str(s)][floor_key] * scale for s in sizes],
    }
    values = [v for vs in series.values() for v in vs if v > 0]
    yt = _ticks(min(values), max(values))
    xt = _ticks(min(sizes), max(sizes))

    def px(x: float) -> float:
        span = math.log10(xt[-1]) - math.log10(xt[0]) or 1
        return x0 + PAD + (math.log10(x) - math.log10(xt[0])) / span * (W - PAD - 12)

    def py(y: float) -> float:
        span = math.log10(yt[-1]) - math.log10(yt[0]) or 1
        return y0 + H - 30 - (math.log10(y) - math.log10(yt[0])) / span * (H - 60)

    out = [
        f'<text x="{x0 + W / 2:.1f}" y="{y0 + 16}" text-anchor="middle" font-weight="bold">{title}</text>'
    ]
    for t in yt:
        out.append(
            f'<line x1="{x0 + PAD}" x2="{x0 + W - 12}" y1="{py(t):.1f}" y2="{py(t):.1f}" stroke="#eee"/>'
        )
        out.append(f'<text x="{x0 + PAD - 4}" y="{py(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    for t in xt:
        out.append(f'<text x="{px(t):.1f}" y="{y0 + H - 14}" text-anchor="middle">{t:g}</text>')
    out.append(f'<text x="{x0 + W - 12}" y="{y0 + H - 2}" text-anchor="end">{xlabel}</text>')
    out.append(f'<text x="{x0 + 4}" y="{y0 + 30}">{unit}</text>')
    for vs, color in zip(series.values(), (WAVE_COLOR, FLOOR_COLOR), strict=True):
        points = " ".join(
            f"{px(s):.1f},{py(v):.1f}" for s, v in zip(sizes, vs, strict=True) if v > 0
        )
        out.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>')
        for s, v in zip(sizes, vs, strict=True):
            out.append(f'<circle cx="{px(s):.1f}" cy="{py(v):.1f}" r="2.5" fill="{color}"/>')
    legend_y = y0 + 30
    for i, (name, color) in enumerate(zip(series, (WAVE_COLOR, FLOOR_COLOR), strict=True)):
        out.append(f'<text x="{x0 + PAD + 8}" y="{legend_y + 13 * i}" fill="{color}">{name}</text>')
    return out


def svg(figures: dict[str, dict[str, dict[str, float]]]) -> str:
    panels = [p for p in PANELS if p[0] in figures]
    rows = math.ceil(len(panels) / COLS)
    body: list[str] = []
    for i, spec in enumerate(panels):
        body += _panel(figures[spec[0]], spec, (i % COLS) * W, (i // COLS) * H)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{COLS * W}" height="{rows * H}"'
        f' font-family="sans-serif" font-size="11">'
    )
    return (
        "\n".join([head, '<rect width="100%" height="100%" fill="white"/>', *body, "</svg>"]) + "\n"
    )


def table(figures: dict[str, dict[str, dict[str, float]]]) -> str:
    lines = ["| what | size | wave | floor | ratio |", "| --- | ---: | ---: | ---: | ---: |"]
    for key, title, xlabel, wave_key, floor_key, floor_name in PANELS:
        scale, unit = _unit(wave_key)
        for size, row in sorted(figures.get(key, {}).items(), key=lambda kv: int(kv[0])):
            wave, floor = row[wave_key] * scale, row[floor_key] * scale
            lines.append(
                f"| {title} | {int(size):,} {xlabel} | {wave:,.1f} {unit} |"
                f" {floor:,.1f} {unit} ({floor_name}) | {wave / floor:.2f}× |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    source = Path(argv[0]) if argv else ROOT / "docs" / "growth.json"
    target = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "growth.svg"
    figures = json.loads(source.read_text())
    target.write_text(svg(figures))
    sys.stdout.write(table(figures))


if __name__ == "__main__":
    main(sys.argv[1:])
