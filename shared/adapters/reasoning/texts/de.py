"""German wording of the offline reasoner (keys and placeholders as in ``en``).

Quotes are „…“; a name dropped into a sentence is quoted or follows a colon, so
German cases never have to agree with a subject the reasoner did not write.
"""

from __future__ import annotations

from typing import Final

from shared.adapters.reasoning.texts import Profile

TEXTS: Final[dict[str, str]] = {
    # report headings
    "open_questions": "Offene Fragen",
    "limitations": "Einschränkungen",
    "method": "Wie die Zitate ausgewählt wurden",
    "scope": "Umfang",
    "contrast_heading": "Offizielle und Community-Quellen im Vergleich",
    "contrast_official": "Offizielle Quellen (Stufe 1) sagen:",
    "contrast_community": "Community-Quellen (Stufe 5) sagen:",
    "contrast_none": "Es wurde keine Quelle dieser Stufe gelesen, daher gibt es nichts, was "
    "der anderen Seite gegenübergestellt werden könnte.",
    "scope_body": "Der Bericht behandelt nur, was die gelesenen Quellen zur Frage sagen; was "
    "sie nicht erwähnen, steht unter „Offene Fragen“.",
    "deep_search_heading": "Weitere Belege aus der Tiefensuche",
    "report_title": "{subject}: Recherchebericht",
    # report prose
    "summary_intro": "Dieser Bericht beantwortet „{query}“ (zitierte Quellen: {sources}; Themen: "
    "{topics}).",
    "summary_uncited": "Zu „{query}“ gelesene Quellen: {read}. Keine enthielt eine Passage zur "
    "Frage selbst, die dieser extraktive Motor zitieren konnte; daher zitiert dieser Bericht "
    "keine.",
    "summary_near": "Die Quellen kommen der Frage nur nahe: keine zu „{query}“ gelesene Quelle "
    "({read} insgesamt) behandelt sie, daher stammen die folgenden Passagen aus der "
    "nächstliegenden ({title}) und beantworten sie womöglich nur teilweise.",
    "summary_empty": "Zu „{query}“ konnte keine Quelle gelesen werden, daher enthält dieser "
    "Bericht keine Ergebnisse.",
    "conclusion_covered": "Am besten belegt sind: {topics}.",
    "conclusion_thin": "Kein Abschnitt stützt sich auf mehr als eine Quelle.",
    "sources_count": "{n} Quellen",
    "conclusion_cited": "Zitierte Quellen: {sources}.",
    "conclusion_gaps": "Noch offene Aspekte: {gaps}.",
    "open_questions_body": "Diese Aspekte wurden von den gelesenen Quellen nicht abgedeckt: "
    "{gaps}.",
    "open_questions_none": "Die gelesenen Quellen decken jedes geplante Thema ab; die "
    "weiterführenden Fragen unten zeigen auf angrenzende Aspekte.",
    "engine_note": "Offline von der extraktiven Engine über den lokalen Korpus „{corpus}“ "
    "({documents} Dokumente) geschrieben, ohne Sprachmodell: Jeder Satz der Abschnitte ist "
    "ein Zitat aus einer angegebenen Quelle in deren Sprache, und keine Aussage wurde über "
    "diese Quellen hinaus geprüft.",
    "limitations_thin": "Die Abdeckung ist lückenhaft: verfügbare Rechercheergebnisse: {findings}.",
    "clarification_timed_out": "Die Rückfragen blieben unbeantwortet, daher hat die Recherche "
    "ihren Standardumfang verwendet.",
    "method_body": "Die Quellen wurden mit BM25 gerankt, die Sätze mit Maximal Marginal "
    "Relevance ausgewählt und Beinahe-Duplikate entfernt.",
    # chat / search
    "answer_intro": "Aus der lokalen Referenz ({titles}):",
    "answer_none": "Die lokale Referenz enthält nichts zu dieser Frage; Offline-Antworten im "
    "Chat stammen nur aus der lokalen Referenz.",
    "answer_reasoning": "Offline-Antwort, extrahiert aus {docs} Dokumenten der lokalen Referenz.",
    "answer_carried": "Die lokale Referenz ist englisch, daher wurde nach den Wörtern der "
    "Frage gesucht, die sich übertragen lassen ({terms}); die Zitate unten sind englisch.",
    "answer_untranslatable": "Die lokale Referenz ist englisch, und die Frage enthält keinen "
    "englischen Begriff, nach dem sich darin suchen ließe; stellen Sie die Frage erneut und "
    "nennen Sie das Konstrukt auf Englisch (zum Beispiel „with“ oder „yield“).",
    "synth_none": "Zu dieser Frage konnte keine Quelle gelesen werden.",
    "synth_off_topic": "Die gelesenen Quellen sagen nichts, was nah genug an dieser Frage "
    "liegt, um es zu zitieren.",
    "synth_carried": "Die Quellen sind englisch, daher wurden sie über die Wörter der Frage "
    "zugeordnet, die sich übertragen lassen ({terms}); die Zitate unten sind englisch.",
    "synth_english": "Die Quellen sind englisch; die Zitate unten sind englisch.",
    "synth_reasoning": "Extraktive Synthese: {sentences} Sätze aus {cited} von {total} "
    "Quellen, nach BM25-Relevanz gerankt, Beinahe-Duplikate entfernt.",
    # clarify
    "clarify_scope": "Welcher Aspekt von „{subject}“ ist Ihnen am wichtigsten (Definition, "
    "Funktionsweise, Beispiele, Fallstricke)?",
    "clarify_period": "Gibt es einen Zeitraum oder eine Version von „{subject}“, die Sie "
    "interessiert?",
    "clarify_depth": "Wie ausführlich soll die Antwort sein: ein kurzer Überblick oder ein "
    "detaillierter technischer Bericht?",
    "clarify_reason_short": "Die Frage ist kurz oder mehrdeutig.",
    "clarify_reason_clear": "Die Frage ist konkret genug, um zu beginnen.",
    "clarify_reason_answered": "Rückfragen wurden bereits beantwortet.",
    # plan
    "topic_definition": "Definition: {subject}",
    "topic_key_concepts": "Kernkonzepte: {phrase}",
    "topic_how_it_works": "Funktionsweise: {subject}",
    "topic_examples": "Beispiele: {phrase}",
    "topic_pitfalls": "Fallstricke und Sonderfälle: {phrase}",
    "topic_comparison": "Vergleich: {a} und {b}",
    "topic_when_to_use": "Wann einsetzen: {subject}",
    "topic_phrase": "{subject}",
    "q_definition": "Definition",
    "q_key_concepts": "Kernkonzepte",
    "q_how_it_works": "Funktionsweise",
    "q_examples": "Beispiele",
    "q_pitfalls": "Fallstricke",
    "q_comparison": "Unterschied",
    "q_when_to_use": "wann verwenden",
    "q_overview": "Überblick",
    "q_explained": "erklärt",
    "plan_summary": "{count} Themen zu „{query}“.",
    "plan_rationale": "Deckt den Aspekt „{aspect}“ der Frage ab.",
    # agents
    "thought_broad": "Breit beginnen: das Thema zusammen mit der Frage suchen.",
    "thought_narrow": "Mit der eigenen Suchanfrage des Themas eingrenzen.",
    "thought_reformulate": "Die letzte Suche brachte nichts Neues; umformulieren.",
    "thought_scrape": "Das beste ungelesene Ergebnis lesen.",
    "thought_done": "Genug Material gesammelt (oder Schrittbudget erreicht).",
    "finding_none": "Zu diesem Thema wurde nichts Relevantes gefunden.",
    "finding_notes": "{pages} Seiten gelesen, {findings} zentrale Ergebnisse",
    # supervisor
    "todo_instruction": "„{topic}“ vertiefen: konkretere Belege finden.",
    "supervise_notes": "Abdeckung: {covered} von {total} Themen abgedeckt; {new} neue Aufgaben.",
    # follow-up questions
    "fq_relate": "Wie hängt „{phrase}“ mit dem Thema „{subject}“ zusammen?",
    "fq_pitfalls": "Welche typischen Fallstricke gibt es bei „{phrase}“?",
    "fq_when": "Wann sollte man „{phrase}“ verwenden?",
    "fq_examples": "Welche praktischen Beispiele gibt es für „{phrase}“?",
    "fq_generic_examples": "Welche praktischen Beispiele gibt es zum Thema „{subject}“?",
    "fq_generic_pitfalls": "Welche typischen Fehler gibt es beim Thema „{subject}“?",
    "fq_generic_alternatives": "Welche Alternativen gibt es zum Thema „{subject}“?",
    "fq_source": "Was sagt „{phrase}“ über das Thema „{subject}“?",
    "fq_gap": "Was sagen andere Quellen über „{phrase}“?",
    "fq_sides": "{a} und {b}",
}

# none: these templates quote the subject or set it after a label, where a task reads well
# (and only English reads a why-, yes/no or what-happens question as a statement)
TASK_TEXTS: Final[dict[str, str]] = {}
STATEMENT_TEXTS: Final[dict[str, dict[str, str]]] = {}
COMPARISON_TEXTS: Final[dict[str, str]] = {}

# Agent profiles: (name, specialization, working style, source preferences).
PROFILES: Final[list[Profile]] = [
    (
        "Technischer Experte",
        "präzise Definitionen und Mechanismen",
        "liest Referenzdokumentation genau",
        ["Referenzdokumentation", "Spezifikationen"],
    ),
    (
        "Praktiker",
        "Anwendungsmuster und Beispiele",
        "sucht durchgearbeitete Beispiele",
        ["Tutorials", "Referenzdokumentation"],
    ),
    (
        "Kritischer Analyst",
        "Grenzen, Fallstricke und Sonderfälle",
        "prüft Aussagen anhand mehrerer Quellen",
        ["Spezifikationen", "Issue-Tracker"],
    ),
    (
        "Historiker",
        "Ursprünge und Entwicklung",
        "verfolgt Änderungen über Versionen hinweg",
        ["Versionshinweise", "Vorschläge"],
    ),
    (
        "Vergleichender Analyst",
        "Alternativen und Abwägungen",
        "stellt Optionen nebeneinander",
        ["Referenzdokumentation", "Rezensionen"],
    ),
    (
        "Synthetisierer",
        "Zusammenhänge zwischen Themen",
        "fasst über Quellen hinweg zusammen",
        ["Überblicke", "Referenzdokumentation"],
    ),
]

# The citation gate's everyday words (see ``en``). A German word the English corpus never
# saw weighs nothing anyway; these frame words are English words too, or look like them
# ("ist", "die", "man"), and carried the question's weight into the corpus.
GATE_FRAME: Final[str] = """wie was warum wann wo welche welcher welches wer ist sind sein
    war wird werden kann können soll sollte muss man ich wir der die das den dem des ein eine
    einen einem einer und oder aber in im am auf aus bei mit nach von vom zu zum zur für über
    unter zwischen durch gegen ohne es sie er nicht kein keine auch noch nur wenn dass ob
    funktioniert funktionieren benutzen verwenden nutzen"""
GATE_QUALIFIERS: Final[str] = """teuer teure teuren aufwendig aufwendige mehrere verschiedene
    effizient schnell einfach richtig korrekt"""
GATE_IDIOMS: Final[tuple[str, ...]] = (
    r"zur\s+gleichen\s+zeit",
    r"auf\s+einmal",
    r"zur\s+laufzeit",
    r"einer\s+nach\s+dem\s+anderen",
    r"wie\s+oft",
)
GATE_HOW_TO: Final[str] = r"^\s*wie\s+(?:kann|könnte|sollte|soll)\s+(?:ich|man|wir)\b"
