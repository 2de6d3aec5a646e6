"""French words of the report: its labels (``markdown.py``) and its own lines (``limits_text.py``).

Every language has the English keys with the same ``{placeholders}`` (a unit test
checks it), so a key added to one module must be added to each of them.
"""

from __future__ import annotations

from typing import Final

BUDGET: Final = "le budget de jetons ou de coût a été atteint"

TEXT: Final[dict[str, str]] = {
    "phase_failed": "la phase de {phase} a échoué ({error})",
    "deep_search_failed": "la recherche approfondie a échoué : {error}",
    "agent_failed": "l'agent {agent_id} a échoué sur « {topic} » : {error}",
    "topic_not_researched": "le thème {topic_id} ({topic}) était prévu mais n'a pas été étudié",
    "budget_no_research": (
        "{budget} : aucune recherche n'a eu lieu, le budget ne suffisait que pour le rapport"
    ),
    "budget_topics_skipped": "{budget} : non étudiés : {topics}",
    "budget_stopped": "{budget} : la recherche a été arrêtée",
    "budget_reviews_skipped": "{budget} : les revues du superviseur ont été sautées",
    "based_only": ("Le rapport repose uniquement sur les éléments recueillis avant ces limites."),
    "clarification_unanswered": (
        "Les questions de clarification sont restées sans réponse avant l'expiration "
        "du délai ; la recherche a utilisé la question d'origine telle quelle."
    ),
    "thin": "Les éléments étaient peu nombreux : le rapport fait moins de {chars} caractères.",
    "critic": "Relecteur : {issue}",
    "plan_approved": (
        "Le plan de recherche a été approuvé par l'utilisateur avant le début de la recherche."
    ),
    "plan_edited": (
        "Le plan de recherche a été modifié par l'utilisateur avant le début de la "
        "recherche : {changes}."
    ),
    "plan_timed_out": (
        "Personne n'a approuvé le plan de recherche avant l'expiration du délai ; "
        "la recherche a suivi le plan proposé."
    ),
    "methodology": (
        "Avant la rédaction, {findings} résultats de recherche issus de {sources} sources "
        "ont été analysés ; raisonnement de l'analyste : {reasoning}. {searches} Un "
        "critique vérifie chaque version : son raisonnement et ses sources."
    ),
    "methodology_searched": (
        "Une recherche supplémentaire a été menée pour les informations manquantes."
    ),
    "reasoning_induction": "induction (conclusions générales tirées de plusieurs sources)",
    "reasoning_deduction": "déduction (à partir de faits établis)",
    "reasoning_abduction": "abduction (la meilleure explication parmi les alternatives)",
    "reasoning_mixed": "mixte (induction, déduction et abduction)",
    "minimal_title": "Recherche incomplète : {query}",
    "minimal_summary": (
        "La recherche n'a pas pu être menée à bien. Ce rapport minimal consigne ce qui "
        "s'est passé afin que rien ne soit perdu. Cause : {cause}"
    ),
    "minimal_asked": "Question posée",
    "minimal_failed": "Ce qui a échoué",
    "minimal_found": "Ce qui a été trouvé avant l'échec",
    "minimal_nothing": "Aucun résultat n'a été enregistré.",
    "minimal_conclusion": (
        "Relancez la recherche ; la session conserve ses fichiers de mémoire pour examen."
    ),
    "minimal_note": "Rapport minimal : {cause}",
    "draft_note": (
        "La rédaction du rapport a échoué ; voici le brouillon écrit par le "
        "superviseur pendant la recherche."
    ),
    "draft_conclusion": (
        "Ce rapport est le brouillon de la recherche, pas un rapport achevé : "
        "sa rédaction a échoué."
    ),
    "citations_removed": (
        "les citations de sources non récupérées pendant cette session ont été "
        "supprimées ({numbers})"
    ),
    "citations_dropped": "sources listées non récupérées pendant cette session, écartées : {count}",
    "citations_checked": "Vérification des citations : {parts} ; confiance abaissée.",
    "unsourced": (
        "Aucune source n'a pu être lue pour ce rapport : il n'est étayé par aucune citation."
    ),
    # the corrective judge, per topic (shared/usecases/research/coverage.py)
    "topic_on_collection": (
        "« {topic} » repose sur vos seules collections : elles le couvrent (passages "
        "cités en preuve : {quotes})."
    ),
    "topic_on_web": (
        "« {topic} » a aussi été recherché sur le web : vos collections ne le "
        "couvrent pas (passages cités en preuve : {quotes})."
    ),
    "topic_not_covered": (
        "« {topic} » repose sur vos collections, qui ne le couvrent pas (passages "
        "cités en preuve : {quotes}) ; le web a été exclu à votre demande."
    ),
    "pages_navigation": (
        "Les pages trouvées étaient surtout de la navigation ou des tables des matières."
    ),
    "pages_lack": "Absent des pages trouvées, et peut-être donc de la réponse : {wanted}.",
    "lack_definition": "une définition",
    "lack_steps": "des instructions pas à pas",
    "lack_code": "des exemples de code",
    "topics_uncovered": "Non couvert par les pages trouvées : {topics}.",
}

# The phases a status names (``Progress.phase``), as a reader would call them.
PHASES: Final[dict[str, str]] = {
    "deep_search": "recherche approfondie",
    "clarifying": "clarification",
    "waiting_clarification": "clarification",
    "planning": "planification",
    "waiting_plan_approval": "approbation du plan",
    "researching": "recherche",
    "supervising": "supervision",
    "compressing": "compression",
    "writing_report": "rédaction du rapport",
    "reviewing": "relecture",
    "analyst_analyzing": "analyse",
    "critic_reviewing": "relecture du critique",
    "rendering_pdf": "génération du PDF",
}

# The Markdown's fixed headings and labels (``shared/adapters/report/markdown.py``).
LABELS: Final[dict[str, str]] = {
    "query": "Requête",
    "date": "Date",
    "mode": "Mode",
    "executive_summary": "Synthèse",
    "conclusion": "Conclusion",
    "sources": "Sources",
    "follow_up": "Questions complémentaires",
    "key_points": "Points clés",
    "answer": "Réponse",
    "note": "Remarque",
    "limitations": "Limites",
    "methodology": "Méthodologie",
    "confidence": "Confiance",
    "quality": "Score de qualité de la recherche",
    "also_consulted": "Également consultées",
    "follows_up": "Suite de",
    "tier": "niveau",
    "high": "élevée",
    "medium": "moyenne",
    "low": "faible",
}
