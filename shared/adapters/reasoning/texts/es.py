"""Spanish wording of the offline reasoner (keys and placeholders as in ``en``).

Quotes are «…»; a name dropped into a sentence is quoted or follows a colon, so no
article has to contract with a subject the reasoner did not write ("de el").
"""

from __future__ import annotations

from typing import Final

from shared.adapters.reasoning.texts import Profile

TEXTS: Final[dict[str, str]] = {
    # report headings
    "open_questions": "Preguntas abiertas",
    "limitations": "Limitaciones",
    "method": "Cómo se eligieron las citas",
    "scope": "Alcance",
    "contrast_heading": "Fuentes oficiales y de la comunidad comparadas",
    "contrast_official": "Las fuentes oficiales (nivel 1) dicen:",
    "contrast_community": "Las fuentes de la comunidad (nivel 5) dicen:",
    "contrast_none": "no se leyó ninguna fuente de este nivel, así que no hay nada que "
    "oponer al otro lado.",
    "scope_body": "El informe cubre solo lo que las fuentes leídas dicen sobre la pregunta; "
    "lo que no mencionan figura en «Preguntas abiertas».",
    "deep_search_heading": "Más evidencia de la búsqueda profunda",
    "report_title": "{subject}: informe de investigación",
    # report prose
    "summary_intro": "Este informe responde a «{query}» (fuentes citadas: {sources}; temas: "
    "{topics}).",
    "summary_uncited": "Fuentes leídas para «{query}»: {read}. Ninguna tenía un pasaje sobre la "
    "pregunta misma que este motor extractivo pudiera citar, así que este informe no cita "
    "ninguna.",
    "summary_near": "Las fuentes solo se acercan a la pregunta: ninguna fuente leída para "
    "«{query}» ({read} en total) trata de ella, así que los pasajes siguientes son de la más "
    "cercana ({title}) y quizá solo la respondan en parte.",
    "summary_empty": "No se pudo leer ninguna fuente para «{query}», así que este informe "
    "no tiene hallazgos.",
    "conclusion_covered": "La evidencia es más sólida en: {topics}.",
    "conclusion_thin": "Ninguna sección se apoya en más de una fuente.",
    "sources_count": "{n} fuentes",
    "conclusion_cited": "Fuentes citadas: {sources}.",
    "conclusion_gaps": "Aspectos aún abiertos: {gaps}.",
    "open_questions_body": "Las fuentes leídas no cubrieron estos aspectos: {gaps}.",
    "open_questions_none": "Las fuentes leídas cubrieron todos los temas previstos; las "
    "preguntas de seguimiento apuntan a aspectos cercanos.",
    "engine_note": "Escrito sin conexión por el motor extractivo sobre el corpus local "
    "«{corpus}» ({documents} documentos), sin modelo de lenguaje: cada frase de las "
    "secciones es una cita de una fuente indicada, en su idioma, y ninguna afirmación se "
    "comprobó más allá de esas fuentes.",
    "limitations_thin": "La cobertura es escasa: hallazgos de investigación disponibles: "
    "{findings}.",
    "clarification_timed_out": "Las preguntas aclaratorias quedaron sin respuesta, así que "
    "la investigación usó su alcance predeterminado.",
    "method_body": "Las fuentes se ordenaron con BM25, las frases se eligieron con Maximal "
    "Marginal Relevance y se eliminaron los casi duplicados.",
    # chat / search
    "answer_intro": "De la referencia local ({titles}):",
    "answer_none": "La referencia local no dice nada sobre esta pregunta; las respuestas "
    "del chat sin conexión salen solo de la referencia local.",
    "answer_reasoning": "Respuesta extractiva sin conexión a partir de {docs} documentos de "
    "la referencia local.",
    "answer_carried": "La referencia local está en inglés, así que se buscaron las palabras "
    "de la pregunta que se conservan ({terms}); las citas de abajo están en inglés.",
    "answer_untranslatable": "La referencia local está en inglés y la pregunta no tiene "
    "ningún término en inglés con el que buscar; vuelva a preguntar nombrando la "
    "construcción en inglés (por ejemplo «with» o «yield»).",
    "synth_none": "No se pudo leer ninguna fuente para esta pregunta.",
    "synth_off_topic": "Las fuentes leídas no dicen nada que se ajuste lo bastante a esta "
    "pregunta como para citarlo.",
    "synth_carried": "Las fuentes están en inglés, así que se emparejaron con las palabras "
    "de la pregunta que se conservan ({terms}); las citas de abajo están en inglés.",
    "synth_english": "Las fuentes están en inglés; las citas de abajo están en inglés.",
    "synth_reasoning": "Síntesis extractiva: {sentences} frases de {cited} de {total} "
    "fuentes, ordenadas por relevancia BM25, sin casi duplicados.",
    # clarify
    "clarify_scope": "¿Qué aspecto de «{subject}» le interesa más (definición, "
    "funcionamiento, ejemplos, errores frecuentes)?",
    "clarify_period": "¿Le interesa algún periodo o versión concretos de «{subject}»?",
    "clarify_depth": "¿Qué profundidad debe tener la respuesta: un resumen breve o un "
    "informe técnico detallado?",
    "clarify_reason_short": "La pregunta es breve o ambigua.",
    "clarify_reason_clear": "La pregunta es lo bastante concreta para empezar.",
    "clarify_reason_answered": "Ya se dieron aclaraciones.",
    # plan
    "topic_definition": "Definición: {subject}",
    "topic_key_concepts": "Conceptos clave: {phrase}",
    "topic_how_it_works": "Cómo funciona: {subject}",
    "topic_examples": "Ejemplos: {phrase}",
    "topic_pitfalls": "Errores frecuentes y casos límite: {phrase}",
    "topic_comparison": "{a} comparado con {b}",
    "topic_when_to_use": "Cuándo usarlo: {subject}",
    "topic_phrase": "{subject}",
    "q_definition": "definición",
    "q_key_concepts": "conceptos clave",
    "q_how_it_works": "cómo funciona",
    "q_examples": "ejemplos",
    "q_pitfalls": "errores frecuentes",
    "q_comparison": "diferencia",
    "q_when_to_use": "cuándo usar",
    "q_overview": "visión general",
    "q_explained": "explicado",
    "plan_summary": "{count} temas para «{query}».",
    "plan_rationale": "Cubre el aspecto «{aspect}» de la pregunta.",
    # agents
    "thought_broad": "Empezar en amplio: buscar el tema junto con la pregunta.",
    "thought_narrow": "Acotar con la consulta propia del tema.",
    "thought_reformulate": "La última búsqueda no encontró nada nuevo; reformular.",
    "thought_scrape": "Leer el mejor resultado aún no leído.",
    "thought_done": "Material suficiente reunido (o límite de pasos alcanzado).",
    "finding_none": "No se encontró nada relevante para este tema.",
    "finding_notes": "{pages} páginas leídas, {findings} hallazgos clave",
    # supervisor
    "todo_instruction": "Profundizar en «{topic}»: buscar evidencia más concreta.",
    "supervise_notes": "Cobertura: {covered} de {total} temas cubiertos; {new} tareas nuevas.",
    # follow-up questions
    "fq_relate": "¿Qué relación tiene «{phrase}» con «{subject}»?",
    "fq_pitfalls": "¿Cuáles son los errores frecuentes con «{phrase}»?",
    "fq_when": "¿Cuándo conviene usar «{phrase}»?",
    "fq_examples": "¿Qué ejemplos prácticos hay de «{phrase}»?",
    "fq_generic_examples": "¿Qué ejemplos prácticos hay de «{subject}»?",
    "fq_generic_pitfalls": "¿Qué errores son comunes con «{subject}»?",
    "fq_generic_alternatives": "¿Qué alternativas existen a «{subject}»?",
    "fq_source": "¿Qué dice «{phrase}» sobre «{subject}»?",
    "fq_gap": "¿Qué dicen otras fuentes sobre «{phrase}»?",
    "fq_sides": "{a} y {b}",
}

# none: these templates quote the subject or set it after a label, where a task reads well
# (and only English reads a why-, yes/no or what-happens question as a statement)
TASK_TEXTS: Final[dict[str, str]] = {}
STATEMENT_TEXTS: Final[dict[str, dict[str, str]]] = {}
COMPARISON_TEXTS: Final[dict[str, str]] = {}

# Agent profiles: (name, specialization, working style, source preferences).
PROFILES: Final[list[Profile]] = [
    (
        "Experto técnico",
        "definiciones y mecanismos precisos",
        "lee con atención la documentación de referencia",
        ["documentación de referencia", "especificaciones"],
    ),
    (
        "Guía práctico",
        "patrones de uso y ejemplos",
        "busca ejemplos resueltos",
        ["tutoriales", "documentación de referencia"],
    ),
    (
        "Analista crítico",
        "limitaciones, errores frecuentes y casos límite",
        "contrasta las afirmaciones con varias fuentes",
        ["especificaciones", "gestores de incidencias"],
    ),
    (
        "Historiador",
        "orígenes y evolución",
        "sigue los cambios entre versiones",
        ["notas de versión", "propuestas"],
    ),
    (
        "Analista comparativo",
        "alternativas y compromisos",
        "compara opciones lado a lado",
        ["documentación de referencia", "reseñas"],
    ),
    (
        "Sintetizador",
        "conexiones entre temas",
        "resume a partir de varias fuentes",
        ["panoramas generales", "documentación de referencia"],
    ),
]

# The citation gate's everyday words (see ``en``). A Spanish word the English corpus never
# saw weighs nothing anyway; these frame words are English words too, or look like them
# ("como", "es", "son"), and carried the question's weight into the corpus.
GATE_FRAME: Final[str] = """cómo como por qué que cuándo cuál cuáles quién dónde es son ser
    está están el la los las un una unos unas de del al y o pero en con para sin sobre entre
    se su sus lo le no más funciona funcionan usar puedo debo hay"""
GATE_QUALIFIERS: Final[str] = """costoso costosa caro cara varios varias eficiente
    eficientemente rápidamente fácilmente simplemente correctamente"""
GATE_IDIOMS: Final[tuple[str, ...]] = (
    r"al\s+mismo\s+tiempo",
    r"a\s+la\s+vez",
    r"de\s+una\s+vez",
    r"en\s+tiempo\s+de\s+ejecución",
    r"uno\s+por\s+uno",
    r"con\s+qué\s+frecuencia",
)
GATE_HOW_TO: Final[str] = r"^\s*¿?\s*cómo\s+(?:puedo|podemos|se\s+puede|debo|hago)\b"
