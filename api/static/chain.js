// The analyst -> critic -> writer timeline of a deep research: one line per stage
// of `progress.chain` (role, stage, "iteration 1/3", a preview), newest last.
// Text only (textContent): previews quote the model and the web.

const ROLE_TEXT = { analyst: "Analyst", critic: "Critic", writer: "Writer" };
const STAGE_TEXT = {
  analyst_analyzing: "reading the findings",
  analyst_draft_ready: "analysis complete",
  analyst_search_required: "asks for more searches",
  analyst_searching: "one more round of searches",
  writer_composing: "writing the report",
  writer_revising: "revising after the critique",
  critic_reviewing: "reviewing the report",
  critic_review_complete: "review complete",
};

const $ = (id) => document.getElementById(id);

const VERDICT_MARK = { PASS: "✅", WARN: "⚠️", REJECT: "❌", READY: "✅", SEARCH_REQUIRED: "🔎" };

export function stageText(stage) {
  const what = STAGE_TEXT[stage.stage] || (stage.stage || "").replaceAll("_", " ");
  const round = stage.of > 1 ? ` · iteration ${stage.iteration}/${stage.of}` : "";
  const cited = stage.citations ? ` · cited ${stage.citations} sources` : "";
  const verdict = stage.status ? ` · ${VERDICT_MARK[stage.status] || ""} ${stage.status}` : "";
  return `${what}${round}${cited}${verdict}`;
}

/** Show the chain of one session view; hidden until the chain has begun. */
export function renderChain(view) {
  const chain = (view.progress || {}).chain || [];
  $("chain-box").hidden = chain.length === 0;
  $("chain-list").replaceChildren(...chain.map((stage, index) => {
    const item = document.createElement("li");
    item.dataset.role = stage.role;
    item.dataset.stage = stage.stage;
    if (stage.status) item.dataset.status = stage.status;
    if (index === chain.length - 1) item.setAttribute("aria-current", "step");
    const role = document.createElement("strong");
    role.textContent = ROLE_TEXT[stage.role] || stage.role;
    const detail = document.createElement("span");
    detail.textContent = ` ${stageText(stage)}`;
    item.append(role, detail);
    if (stage.preview) {
      const preview = document.createElement("q");
      preview.className = "chain-preview";
      preview.textContent = stage.preview;
      item.append(" ", preview);
    }
    return item;
  }));
}
