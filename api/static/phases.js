// Where a finished run's time and money went: one row per phase, and the total.
// The figures come from the status (`phases`, adding up to `usage`); text only, no HTML.

const box = () => document.getElementById("phases-box");

/** Show the phase table once the run has ended and the status carries its phases. */
export function renderPhases(view) {
  const target = box();
  const phases = view.phases || [];
  target.hidden = phases.length === 0;
  if (target.hidden) return;
  const body = target.querySelector("tbody");
  const rows = phases.map((p) => row(p.seq > 1 ? `${p.phase} (${p.seq})` : p.phase, p.seconds, p.usage));
  const seconds = phases.reduce((sum, p) => sum + p.seconds, 0);
  rows.push(row("total", seconds, view.usage));
  rows[rows.length - 1].classList.add("total");
  body.replaceChildren(...rows);
}

function row(name, seconds, usage) {
  const tr = document.createElement("tr");
  const cells = [
    name,
    `${seconds.toFixed(1)} s`,
    String(usage.llm_calls),
    String(usage.prompt_tokens + usage.completion_tokens),
    `$${usage.cost.toFixed(4)}`,
  ];
  for (const text of cells) {
    const td = document.createElement("td");
    td.textContent = text;
    tr.append(td);
  }
  return tr;
}
