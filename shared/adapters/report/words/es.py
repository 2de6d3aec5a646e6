"""Spanish words of the report: its labels (``markdown.py``) and its own lines (``limits_text.py``).

Every language has the English keys with the same ``{placeholders}`` (a unit test
checks it), so a key added to one module must be added to each of them.
"""

from __future__ import annotations

from typing import Final

BUDGET: Final = "se alcanzó el presupuesto de tokens o de coste"

TEXT: Final[dict[str, str]] = {
    "phase_failed": "la fase de {phase} falló ({error})",
    "deep_search_failed": "la búsqueda profunda falló: {error}",
    "agent_failed": "el agente {agent_id} falló en «{topic}»: {error}",
    "topic_not_researched": (
        "el tema {topic_id} ({topic}) estaba planificado pero no se investigó"
    ),
    "budget_no_research": (
        "{budget}: no hubo investigación, el presupuesto solo alcanzaba para el informe"
    ),
    "budget_topics_skipped": "{budget}: sin investigar: {topics}",
    "budget_stopped": "{budget}: la investigación se detuvo",
    "budget_reviews_skipped": "{budget}: se omitieron las revisiones del supervisor",
    "based_only": "El informe se basa solo en la evidencia reunida antes de estos límites.",
    "clarification_unanswered": (
        "Las preguntas aclaratorias quedaron sin respuesta antes del plazo; "
        "la investigación usó la pregunta original tal como se formuló."
    ),
    "thin": "La evidencia era escasa: el informe tiene menos de {chars} caracteres.",
    "critic": "Revisor: {issue}",
    "plan_approved": "El usuario aprobó el plan de investigación antes de empezar.",
    "plan_edited": "El usuario editó el plan de investigación antes de empezar: {changes}.",
    "plan_timed_out": (
        "Nadie aprobó el plan de investigación antes del plazo; "
        "la investigación siguió el plan propuesto."
    ),
    "methodology": (
        "Antes de redactar se analizaron {findings} hallazgos de {sources} fuentes; "
        "razonamiento del analista: {reasoning}. {searches} Un crítico revisa cada "
        "versión: su razonamiento y sus fuentes."
    ),
    "methodology_searched": (
        "Se realizó una ronda más de búsquedas para la información que faltaba."
    ),
    "reasoning_induction": "inducción (conclusiones generales a partir de varias fuentes)",
    "reasoning_deduction": "deducción (a partir de hechos establecidos)",
    "reasoning_abduction": "abducción (la mejor explicación entre alternativas)",
    "reasoning_mixed": "mixto (inducción, deducción y abducción)",
    "minimal_title": "Investigación incompleta: {query}",
    "minimal_summary": (
        "La investigación no pudo completarse. Este informe mínimo registra lo "
        "ocurrido para que no se pierda nada. Causa: {cause}"
    ),
    "minimal_asked": "Qué se preguntó",
    "minimal_failed": "Qué falló",
    "minimal_found": "Qué se encontró antes del fallo",
    "minimal_nothing": "No se registraron hallazgos.",
    "minimal_conclusion": (
        "Vuelva a lanzar la investigación; la sesión conserva sus archivos de memoria "
        "para su revisión."
    ),
    "minimal_note": "Informe mínimo: {cause}",
    "draft_note": (
        "No se pudo redactar el informe; este es el borrador que el supervisor "
        "escribió durante la investigación."
    ),
    "draft_conclusion": (
        "Este informe es el borrador de la investigación, no un informe "
        "terminado: no se pudo completar."
    ),
    "citations_removed": (
        "se eliminaron las citas de fuentes que no se obtuvieron en esta sesión ({numbers})"
    ),
    "citations_dropped": (
        "fuentes listadas que no se obtuvieron en esta sesión, descartadas: {count}"
    ),
    "citations_checked": "Comprobación de citas: {parts}; confianza reducida.",
    "unsourced": "No se pudo leer ninguna fuente para este informe: no está respaldado por citas.",
    # the corrective judge, per topic (shared/usecases/research/coverage.py)
    "topic_on_collection": (
        "«{topic}» se basa solo en sus colecciones: lo cubren (pasajes citados como "
        "evidencia: {quotes})."
    ),
    "topic_on_web": (
        "«{topic}» se investigó también en la web: sus colecciones no lo cubren "
        "(pasajes citados como evidencia: {quotes})."
    ),
    "topic_not_covered": (
        "«{topic}» se basa en sus colecciones, que no lo cubren (pasajes citados como"
        " evidencia: {quotes}); la web se dejó fuera a petición."
    ),
    "pages_navigation": "Las páginas encontradas eran sobre todo navegación o índices.",
    "pages_lack": "No está en las páginas encontradas, y quizá tampoco en la respuesta: {wanted}.",
    "lack_definition": "una definición",
    "lack_steps": "instrucciones paso a paso",
    "lack_code": "ejemplos de código",
    "topics_uncovered": "No cubierto por las páginas encontradas: {topics}.",
}

# The phases a status names (``Progress.phase``), as a reader would call them.
PHASES: Final[dict[str, str]] = {
    "deep_search": "búsqueda profunda",
    "clarifying": "aclaración",
    "waiting_clarification": "aclaración",
    "planning": "planificación",
    "waiting_plan_approval": "aprobación del plan",
    "researching": "investigación",
    "supervising": "supervisión",
    "compressing": "compresión",
    "writing_report": "redacción del informe",
    "reviewing": "revisión",
    "analyst_analyzing": "análisis",
    "critic_reviewing": "revisión del crítico",
    "rendering_pdf": "generación del PDF",
}

# The Markdown's fixed headings and labels (``shared/adapters/report/markdown.py``).
LABELS: Final[dict[str, str]] = {
    "query": "Consulta",
    "date": "Fecha",
    "mode": "Modo",
    "executive_summary": "Resumen ejecutivo",
    "conclusion": "Conclusión",
    "sources": "Fuentes",
    "follow_up": "Preguntas de seguimiento",
    "key_points": "Puntos clave",
    "answer": "Respuesta",
    "note": "Nota",
    "limitations": "Limitaciones",
    "methodology": "Metodología",
    "confidence": "Confianza",
    "quality": "Puntuación de calidad de la investigación",
    "also_consulted": "También consultadas",
    "follows_up": "Continúa",
    "tier": "nivel",
    "high": "alta",
    "medium": "media",
    "low": "baja",
}
