"""The built-in `deep-research` workflow (004 §12): Scope (five search dimensions), Search (five
agents in parallel, findings and source URLs), Fetch (the first 15 distinct URLs in parallel,
falsifiable claims with their source), Verify (three independent skeptics vote on every claim:
refuted by all three it is dropped, by some it is Contested, by none Confirmed), Synthesize (the
Markdown report: executive summary, key findings by confidence with citations, contested findings
with caveats, areas of uncertainty, conclusion). The `deep-research` skill runs it and writes the
report into the project.

Kept as text here rather than a `.js` file so it ships with the package like the code.
"""

from __future__ import annotations

from pathlib import Path

from wave_tui.features.workflows.discovery import WorkflowDef, workflow_of

DEEP_RESEARCH = "deep-research"
SOURCES_TO_FETCH = 15
SKEPTICS = 3

# Each prompt names its phase in the first words (`[deep-research:scope]`, …): the agents see it,
# and so does whoever reads their transcripts.
DEEP_RESEARCH_JS = r"""// Multi-phase research: scope, parallel search, fetch and extract claims, adversarial verification, report
// permissions: WebSearch, WebFetch
const question = typeof args === "string" ? args : (args && args.question);
if (typeof question !== "string" || !question.trim()) {
  throw new Error("deep-research needs args.question (the research question)");
}
const FALLBACK_DIMENSIONS = [
  "background and overview", "technical details", "latest developments",
  "opposing views and criticism", "practical applications",
];
const parse = (text, fallback) => {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fenced ? fenced[1] : text;
  const start = body.search(/[\[{]/);
  try { return JSON.parse(start >= 0 ? body.slice(start) : body); } catch (e) { return fallback; }
};

// 1. Scope
const [scoped] = await phase("scope", [{
  description: "scope the question",
  prompt: `[deep-research:scope] Research question: ${question}\n` +
    "Split it into exactly 5 distinct search dimensions (for example background, technical " +
    "details, latest developments, opposing views, practical applications). Do not search yet. " +
    'Reply with only a JSON array of 5 short strings.',
}]);
const named = scoped.ok ? parse(scoped.text, []) : [];
const dimensions = (Array.isArray(named) ? named : []).filter((d) => typeof d === "string").slice(0, 5);
for (const d of FALLBACK_DIMENSIONS) if (dimensions.length < 5 && !dimensions.includes(d)) dimensions.push(d);

// 2. Search, one agent per dimension
const searched = await phase("search", dimensions.map((dimension) => ({
  description: `search: ${dimension}`,
  prompt: `[deep-research:search] Research question: ${question}\nDimension: ${dimension}\n` +
    "Search the web (WebSearch) for this dimension only. Reply with only JSON: " +
    '{"findings": ["key finding", ...], "urls": ["https://source", ...]} (the best sources first).',
})));
const urls = [];
for (const result of searched) {
  if (!result.ok) continue;
  for (const url of parse(result.text, {}).urls || []) {
    if (typeof url === "string" && /^https?:\/\//.test(url) && !urls.includes(url)) urls.push(url);
  }
}
const sources = urls.slice(0, __SOURCES__);

// 3. Fetch each source and extract falsifiable claims
const fetched = sources.length === 0 ? [] : await phase("fetch", sources.map((url) => ({
  description: `fetch ${url}`,
  prompt: `[deep-research:fetch] Research question: ${question}\nSource: ${url}\n` +
    "Fetch this page (WebFetch) and extract its core claims that bear on the question, each " +
    "one falsifiable (specific enough to be proven wrong). Reply with only JSON: " +
    '{"claims": [{"claim": "...", "source": "the URL"}]}.',
})));
const claims = [];
fetched.forEach((result, index) => {
  if (!result.ok) return;
  for (const c of parse(result.text, {}).claims || []) {
    if (c && typeof c.claim === "string" && c.claim.trim()) {
      claims.push({ claim: c.claim.trim(), source: typeof c.source === "string" ? c.source : sources[index], refuted: 0 });
    }
  }
});

// 4. Verify: independent skeptics vote on every claim
if (claims.length > 0) {
  const listed = claims.map((c, i) => `${i + 1}. ${c.claim} (source: ${c.source})`).join("\n");
  const votes = await phase("verify", Array.from({ length: __SKEPTICS__ }, (_, n) => ({
    description: `skeptic ${n + 1}`,
    prompt: `[deep-research:verify] Research question: ${question}\nYou are an independent ` +
      "skeptic: look for evidence (WebSearch, WebFetch) that refutes each claim below. Claims:\n" +
      `${listed}\nReply with only JSON: {"refuted": [numbers of the claims you found refuted]}.`,
  })));
  for (const vote of votes) {
    if (!vote.ok) continue;
    const refuted = new Set(parse(vote.text, {}).refuted || []);
    for (const number of refuted) if (claims[number - 1]) claims[number - 1].refuted += 1;
  }
}
const kept = claims
  .filter((c) => c.refuted < __SKEPTICS__)
  .map((c) => ({ ...c, verdict: c.refuted === 0 ? "Confirmed" : "Contested" }));
console.log(`${claims.length} claims, ${kept.length} kept`);

// 5. Synthesize the report
const [report] = await phase("synthesize", [{
  description: "write the report",
  prompt: `[deep-research:synthesize] Research question: ${question}\nVerified claims ` +
    `(verdict, refutation votes of __SKEPTICS__, claim, source):\n` +
    kept.map((c) => `- ${c.verdict} (${c.refuted}) ${c.claim} [${c.source}]`).join("\n") +
    "\nMerge claims that say the same thing, order by confidence, and write a Markdown report " +
    "with exactly these sections: ## Executive summary, ## Key findings (with citations), " +
    "## Contested findings (with caveats), ## Areas of uncertainty, ## Conclusion. Reply with " +
    "only the report.",
}]);
if (!report.ok) throw new Error(`the report could not be written: ${report.error}`);
return report.text;
""".replace("__SOURCES__", str(SOURCES_TO_FETCH)).replace("__SKEPTICS__", str(SKEPTICS))


# req: WK4
def deep_research() -> WorkflowDef:
    return workflow_of(DEEP_RESEARCH, "builtin", Path(__file__), DEEP_RESEARCH_JS)
