"""German words of the report: its labels (``markdown.py``) and its own lines (``limits_text.py``).

Every language has the English keys with the same ``{placeholders}`` (a unit test
checks it), so a key added to one module must be added to each of them.
"""

from __future__ import annotations

from typing import Final

BUDGET: Final = "das Token- oder Kostenbudget war erreicht"

TEXT: Final[dict[str, str]] = {
    "phase_failed": "die Phase „{phase}“ ist fehlgeschlagen ({error})",
    "deep_search_failed": "die Tiefensuche ist fehlgeschlagen: {error}",
    "agent_failed": "Agent {agent_id} ist am Thema „{topic}“ gescheitert: {error}",
    "topic_not_researched": (
        "Thema {topic_id} ({topic}) war geplant, wurde aber nicht recherchiert"
    ),
    "budget_no_research": (
        "{budget}: Es fand keine Recherche statt, das Budget reichte nur für den Bericht"
    ),
    "budget_topics_skipped": "{budget}: nicht recherchiert: {topics}",
    "budget_stopped": "{budget}: Die Recherche wurde beendet",
    "budget_reviews_skipped": "{budget}: Die Prüfungen des Supervisors entfielen",
    "based_only": (
        "Der Bericht stützt sich nur auf die Belege, die vor diesen Einschränkungen "
        "gesammelt wurden."
    ),
    "clarification_unanswered": (
        "Die Rückfragen blieben bis zum Ablauf der Wartezeit unbeantwortet; "
        "die Recherche ging von der ursprünglichen Frage aus."
    ),
    "thin": "Die Beleglage war dünn: Der Bericht ist kürzer als {chars} Zeichen.",
    "critic": "Gutachter: {issue}",
    "plan_approved": ("Der Rechercheplan wurde vor Beginn der Recherche vom Benutzer freigegeben."),
    "plan_edited": (
        "Der Rechercheplan wurde vor Beginn der Recherche vom Benutzer bearbeitet: {changes}."
    ),
    "plan_timed_out": (
        "Niemand hat den Rechercheplan vor Ablauf der Wartezeit freigegeben; "
        "die Recherche folgte dem vorgeschlagenen Plan."
    ),
    "methodology": (
        "Vor dem Schreiben wurden {findings} Rechercheergebnisse aus {sources} Quellen "
        "analysiert; Schlussweise der Analyse: {reasoning}. {searches} Ein Kritiker prüft "
        "jede Fassung auf Schlüssigkeit und Quellen."
    ),
    "methodology_searched": "Für fehlende Informationen lief eine weitere Suchrunde.",
    "reasoning_induction": "Induktion (allgemeine Schlüsse aus mehreren Quellen)",
    "reasoning_deduction": "Deduktion (aus gesicherten Fakten)",
    "reasoning_abduction": "Abduktion (die beste Erklärung unter Alternativen)",
    "reasoning_mixed": "gemischt (Induktion, Deduktion und Abduktion)",
    "minimal_title": "Unvollständige Recherche: {query}",
    "minimal_summary": (
        "Die Recherche konnte nicht abgeschlossen werden. Dieser Minimalbericht hält "
        "fest, was geschah, damit nichts verloren geht. Ursache: {cause}"
    ),
    "minimal_asked": "Was gefragt wurde",
    "minimal_failed": "Was fehlschlug",
    "minimal_found": "Was vor dem Fehler gefunden wurde",
    "minimal_nothing": "Es wurden keine Ergebnisse festgehalten.",
    "minimal_conclusion": (
        "Starten Sie die Recherche erneut; die Sitzung behält ihre Speicherdateien zur Einsicht."
    ),
    "minimal_note": "Minimalbericht: {cause}",
    "draft_note": (
        "Der Bericht konnte nicht geschrieben werden; dies ist der Entwurf, "
        "den der Supervisor während der Recherche schrieb."
    ),
    "draft_conclusion": (
        "Dieser Bericht ist der Recherche-Entwurf, kein fertiger Bericht: er "
        "konnte nicht fertiggestellt werden."
    ),
    "citations_removed": (
        "Verweise auf Quellen, die in dieser Sitzung nicht abgerufen wurden, wurden "
        "entfernt ({numbers})"
    ),
    "citations_dropped": (
        "aufgeführte Quellen, die in dieser Sitzung nicht abgerufen wurden, entfernt: {count}"
    ),
    "citations_checked": "Quellenprüfung: {parts}; Konfidenz herabgesetzt.",
    "unsourced": (
        "Für diesen Bericht konnte keine Quelle gelesen werden: Er ist nicht durch "
        "Quellenangaben belegt."
    ),
    # the corrective judge, per topic (shared/usecases/research/coverage.py)
    "topic_on_collection": (
        "„{topic}“ stützt sich allein auf Ihre Sammlungen: Sie decken das Thema ab "
        "(zitierte Belegstellen: {quotes})."
    ),
    "topic_on_web": (
        "„{topic}“ wurde auch im Web recherchiert: Ihre Sammlungen decken das Thema "
        "nicht ab (zitierte Belegstellen: {quotes})."
    ),
    "topic_not_covered": (
        "„{topic}“ stützt sich auf Ihre Sammlungen, die das Thema nicht abdecken "
        "(zitierte Belegstellen: {quotes}); das Web blieb auf Wunsch außen vor."
    ),
    "pages_navigation": (
        "Die gefundenen Seiten waren überwiegend Navigation oder Inhaltsverzeichnisse."
    ),
    "pages_lack": (
        "Nicht in den gefundenen Seiten, also womöglich auch nicht in der Antwort: {wanted}."
    ),
    "lack_definition": "eine Definition",
    "lack_steps": "eine Schritt-für-Schritt-Anleitung",
    "lack_code": "Codebeispiele",
    "topics_uncovered": "Von den gefundenen Seiten nicht abgedeckt: {topics}.",
}

# The phases a status names (``Progress.phase``), as a reader would call them.
PHASES: Final[dict[str, str]] = {
    "deep_search": "Tiefensuche",
    "clarifying": "Rückfragen",
    "waiting_clarification": "Rückfragen",
    "planning": "Planung",
    "waiting_plan_approval": "Planfreigabe",
    "researching": "Recherche",
    "supervising": "Überprüfung",
    "compressing": "Verdichtung",
    "writing_report": "Berichterstellung",
    "reviewing": "Begutachtung",
    "analyst_analyzing": "Analyse",
    "critic_reviewing": "Prüfung durch den Kritiker",
    "rendering_pdf": "PDF-Erstellung",
}

# The Markdown's fixed headings and labels (``shared/adapters/report/markdown.py``).
LABELS: Final[dict[str, str]] = {
    "query": "Anfrage",
    "date": "Datum",
    "mode": "Modus",
    "executive_summary": "Zusammenfassung",
    "conclusion": "Fazit",
    "sources": "Quellen",
    "follow_up": "Weiterführende Fragen",
    "key_points": "Kernpunkte",
    "answer": "Antwort",
    "note": "Hinweis",
    "limitations": "Einschränkungen",
    "methodology": "Methodik",
    "confidence": "Konfidenz",
    "quality": "Forschungsqualität",
    "also_consulted": "Ebenfalls gelesen",
    "follows_up": "Fortsetzung von",
    "tier": "Stufe",
    "high": "hoch",
    "medium": "mittel",
    "low": "niedrig",
}
