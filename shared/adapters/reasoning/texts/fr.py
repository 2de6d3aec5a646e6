"""French wording of the offline reasoner (keys and placeholders as in ``en``).

Quotes are « … » and a space precedes « : » and « ? », as French typography asks; a
name dropped into a sentence is quoted or follows a colon, so no article has to
elide or contract with a subject the reasoner did not write (« de le »).
"""

from __future__ import annotations

from typing import Final

from shared.adapters.reasoning.texts import Profile

TEXTS: Final[dict[str, str]] = {
    # report headings
    "open_questions": "Questions ouvertes",
    "limitations": "Limites",
    "method": "Comment les citations ont été choisies",
    "scope": "Périmètre",
    "contrast_heading": "Sources officielles et communautaires comparées",
    "contrast_official": "Les sources officielles (niveau 1) disent :",
    "contrast_community": "Les sources communautaires (niveau 5) disent :",
    "contrast_none": "aucune source de ce niveau n'a été lue, il n'y a donc rien à opposer "
    "à l'autre côté.",
    "scope_body": "Le rapport ne couvre que ce que les sources lues disent de la question ; "
    "ce qu'elles ne mentionnent pas figure sous « Questions ouvertes ».",
    "deep_search_heading": "Éléments supplémentaires de la recherche approfondie",
    "report_title": "{subject} : rapport de recherche",
    # report prose
    "summary_intro": "Ce rapport répond à « {query} » (sources citées : {sources} ; thèmes : "
    "{topics}).",
    "summary_uncited": "Sources lues pour « {query} » : {read}. Aucune ne contenait de passage sur "
    "la question elle-même que ce moteur extractif pouvait citer : ce rapport n'en cite aucune.",
    "summary_near": "Les sources ne font qu'approcher la question : aucune source lue pour « "
    "{query} » ({read} en tout) n'en traite, les passages ci-dessous viennent donc de la plus "
    "proche ({title}) et n'y répondent peut-être qu'en partie.",
    "summary_empty": "Aucune source n'a pu être lue pour « {query} », ce rapport ne contient "
    "donc aucun résultat.",
    "conclusion_covered": "Les éléments les plus solides portent sur : {topics}.",
    "conclusion_thin": "Aucune section ne repose sur plus d'une source.",
    "sources_count": "{n} sources",
    "conclusion_cited": "Sources citées : {sources}.",
    "conclusion_gaps": "Aspects encore ouverts : {gaps}.",
    "open_questions_body": "Ces aspects n'ont pas été couverts par les sources lues : {gaps}.",
    "open_questions_none": "Les sources lues couvrent chaque thème prévu ; les questions "
    "complémentaires ci-dessous renvoient à des aspects voisins.",
    "engine_note": "Rédigé hors ligne par le moteur extractif sur le corpus local "
    "« {corpus} » ({documents} documents), sans modèle de langage : chaque phrase des "
    "sections est une citation d'une source indiquée, dans sa langue, et aucune affirmation "
    "n'a été vérifiée au-delà de ces sources.",
    "limitations_thin": "La couverture est mince : résultats de recherche disponibles : "
    "{findings}.",
    "clarification_timed_out": "Les questions de clarification sont restées sans réponse, "
    "la recherche a donc utilisé son périmètre par défaut.",
    "method_body": "Les sources ont été classées avec BM25, les phrases choisies par Maximal "
    "Marginal Relevance, et les quasi-doublons supprimés.",
    # chat / search
    "answer_intro": "D'après la référence locale ({titles}) :",
    "answer_none": "La référence locale ne dit rien sur cette question ; les réponses du "
    "chat hors ligne proviennent uniquement de la référence locale.",
    "answer_reasoning": "Réponse extractive hors ligne tirée de {docs} documents de la "
    "référence locale.",
    "answer_carried": "La référence locale est en anglais, la recherche a donc porté sur les "
    "mots de la question qui s'y retrouvent ({terms}) ; les citations ci-dessous sont en "
    "anglais.",
    "answer_untranslatable": "La référence locale est en anglais et la question ne contient "
    "aucun terme anglais pour y chercher ; reposez la question en nommant la construction "
    "en anglais (par exemple « with » ou « yield »).",
    "synth_none": "Aucune source n'a pu être lue pour cette question.",
    "synth_off_topic": "Les sources lues ne disent rien d'assez proche de cette question "
    "pour être cité.",
    "synth_carried": "Les sources sont en anglais, elles ont donc été rapprochées des mots "
    "de la question qui s'y retrouvent ({terms}) ; les citations ci-dessous sont en anglais.",
    "synth_english": "Les sources sont en anglais ; les citations ci-dessous sont en anglais.",
    "synth_reasoning": "Synthèse extractive : {sentences} phrases tirées de {cited} sources "
    "sur {total}, classées par pertinence BM25, quasi-doublons supprimés.",
    # clarify
    "clarify_scope": "Quel aspect de « {subject} » vous importe le plus (définition, "
    "fonctionnement, exemples, pièges) ?",
    "clarify_period": "Une période ou une version de « {subject} » vous intéresse-t-elle "
    "en particulier ?",
    "clarify_depth": "Quel niveau de détail souhaitez-vous : un bref aperçu ou un rapport "
    "technique détaillé ?",
    "clarify_reason_short": "La question est courte ou ambiguë.",
    "clarify_reason_clear": "La question est assez précise pour commencer.",
    "clarify_reason_answered": "Des précisions ont déjà été données.",
    # plan
    "topic_definition": "Définition : {subject}",
    "topic_key_concepts": "Concepts clés : {phrase}",
    "topic_how_it_works": "Fonctionnement : {subject}",
    "topic_examples": "Exemples : {phrase}",
    "topic_pitfalls": "Pièges et cas limites : {phrase}",
    "topic_comparison": "Comparaison : {a} et {b}",
    "topic_when_to_use": "Quand l'utiliser : {subject}",
    "topic_phrase": "{subject}",
    "q_definition": "définition",
    "q_key_concepts": "concepts clés",
    "q_how_it_works": "fonctionnement",
    "q_examples": "exemples",
    "q_pitfalls": "pièges",
    "q_comparison": "différence",
    "q_when_to_use": "quand utiliser",
    "q_overview": "aperçu",
    "q_explained": "expliqué",
    "plan_summary": "{count} thèmes pour « {query} ».",
    "plan_rationale": "Couvre l'aspect « {aspect} » de la question.",
    # agents
    "thought_broad": "Commencer large : chercher le thème avec la question.",
    "thought_narrow": "Affiner avec la requête propre au thème.",
    "thought_reformulate": "La dernière recherche n'a rien apporté de nouveau ; reformuler.",
    "thought_scrape": "Lire le meilleur résultat non lu.",
    "thought_done": "Assez de matière réunie (ou budget d'étapes atteint).",
    "finding_none": "Rien de pertinent n'a été trouvé pour ce thème.",
    "finding_notes": "{pages} pages lues, {findings} résultats clés",
    # supervisor
    "todo_instruction": "Approfondir « {topic} » : trouver des éléments plus précis.",
    "supervise_notes": "Couverture : {covered} thèmes couverts sur {total} ; {new} nouvelles "
    "tâches.",
    # follow-up questions
    "fq_relate": "Quel est le lien entre « {phrase} » et « {subject} » ?",
    "fq_pitfalls": "Quels sont les pièges courants avec « {phrase} » ?",
    "fq_when": "Quand faut-il utiliser « {phrase} » ?",
    "fq_examples": "Quels sont des exemples pratiques de « {phrase} » ?",
    "fq_generic_examples": "Quels sont des exemples pratiques de « {subject} » ?",
    "fq_generic_pitfalls": "Quelles sont les erreurs courantes avec « {subject} » ?",
    "fq_generic_alternatives": "Quelles alternatives à « {subject} » existent ?",
    "fq_source": "Que dit « {phrase} » à propos de « {subject} » ?",
    "fq_gap": "Que disent d'autres sources à propos de « {phrase} » ?",
    "fq_sides": "{a} et {b}",
}

# none: these templates quote the subject or set it after a label, where a task reads well
# (and only English reads a why-, yes/no or what-happens question as a statement)
TASK_TEXTS: Final[dict[str, str]] = {}
STATEMENT_TEXTS: Final[dict[str, dict[str, str]]] = {}
COMPARISON_TEXTS: Final[dict[str, str]] = {}

# Agent profiles: (name, specialization, working style, source preferences).
PROFILES: Final[list[Profile]] = [
    (
        "Expert technique",
        "définitions et mécanismes précis",
        "lit attentivement la documentation de référence",
        ["documentation de référence", "spécifications"],
    ),
    (
        "Guide pratique",
        "modes d'emploi et exemples",
        "cherche des exemples détaillés",
        ["tutoriels", "documentation de référence"],
    ),
    (
        "Analyste critique",
        "limites, pièges et cas limites",
        "confronte les affirmations à plusieurs sources",
        ["spécifications", "gestionnaires de tickets"],
    ),
    (
        "Historien",
        "origines et évolution",
        "retrace les changements d'une version à l'autre",
        ["notes de version", "propositions"],
    ),
    (
        "Analyste comparatif",
        "alternatives et compromis",
        "met les options côte à côte",
        ["documentation de référence", "revues"],
    ),
    (
        "Synthétiseur",
        "liens entre les thèmes",
        "résume à travers plusieurs sources",
        ["vues d'ensemble", "documentation de référence"],
    ),
]

# The citation gate's everyday words (see ``en``). A French word the English corpus never
# saw weighs nothing anyway; these frame words are English words too, or look like them
# ("comment", "en", "par"), and carried the question's weight into the corpus.
GATE_FRAME: Final[str] = """comment pourquoi quand quel quelle quels quelles qui que quoi
    est sont être ont le la les un une des du de et ou mais en dans avec pour par sur sous
    entre sans ce cet cette ces il elle on je nous vous ne pas plus se sa son ses leur leurs
    fonctionne fonctionnent utiliser faut peut puis"""
GATE_QUALIFIERS: Final[str] = """coûteux coûteuse plusieurs divers diverses efficace
    efficacement rapidement facilement simplement correctement"""
GATE_IDIOMS: Final[tuple[str, ...]] = (
    r"en\s+même\s+temps",
    r"à\s+la\s+fois",
    r"d['’]un\s+coup",
    r"à\s+l['’]exécution",
    r"un\s+par\s+un",
    r"à\s+quelle\s+fréquence",
)
GATE_HOW_TO: Final[str] = r"^\s*comment\s+(?:puis-je|peut-on|faire|dois-je)\b"
