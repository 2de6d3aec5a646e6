"""Fixed wording of the offline reasoner, per language.

The offline mind writes no prose of its own beyond these templates: body text
is always sentences taken from the sources. Headings, clarifying questions,
topic decompositions and notes come from here (a question's shape and subject are
read in ``question_shape``), so adding a language means adding one dictionary.
Languages without texts fall back to English.
"""

from __future__ import annotations

from typing import Final

TEXTS: Final[dict[str, dict[str, str]]] = {
    "en": {
        # report headings
        "open_questions": "Open questions",
        "limitations": "Limitations",
        "method": "Method",
        "scope": "Scope",
        "contrast_heading": "Official and community sources compared",
        "contrast_official": "Official sources (tier 1) say:",
        "contrast_community": "Community sources (tier 5) say:",
        "contrast_none": "no source of this tier was read, so there is nothing to set against "
        "the other side.",
        "scope_body": "The report covers only what the sources read say about the question; "
        "what they do not mention is listed under Open questions.",
        "deep_search_heading": "Further evidence from the deep search",
        "report_title": "{subject}: research report",
        # report prose
        "summary_intro": "This report answers “{query}” from {sources} sources across "
        "{topics} topics.",
        "summary_empty": "No source could be read for “{query}”, so this report has no findings.",
        "conclusion_covered": "The evidence is strongest on: {topics}.",
        "conclusion_thin": "No section rests on more than one source.",
        "sources_count": "{n} sources",
        "conclusion_confidence": "Overall confidence is {confidence}, based on {sources} "
        "cited sources.",
        "conclusion_gaps": "Aspects still open: {gaps}.",
        "open_questions_body": "These aspects were not covered by the sources read: {gaps}.",
        "open_questions_none": "The sources read covered every planned topic; the follow-up "
        "questions below point to adjacent aspects.",
        "engine_note": "Written offline by the extractive engine over the local corpus "
        "“{corpus}” ({documents} documents), without a language model: every sentence is "
        "quoted from a cited source, and no claim was checked beyond those sources.",
        "limitations_thin": "Only {findings} research findings were available, so coverage "
        "is thin.",
        "clarification_timed_out": "The clarifying questions went unanswered, so the research "
        "used its own default scope.",
        "method_body": "Sources were ranked with BM25, sentences were selected by Maximal "
        "Marginal Relevance, and near-duplicates were removed.",
        "confidence_high": "high",
        "confidence_medium": "medium",
        "confidence_low": "low",
        # chat / search
        "answer_intro": "From the local reference ({titles}):",
        "answer_none": "The local reference has nothing on this question; offline chat "
        "answers come only from the local reference.",
        "answer_reasoning": "Offline extractive answer from {docs} local reference documents.",
        "answer_carried": "The local reference is in English, so it was searched for the "
        "words of the question that carry over ({terms}); the quotes below are in English.",
        "answer_untranslatable": "The local reference is in English and the question has no "
        "English term to search it for; ask again naming the construct in English (for "
        "example “with” or “yield”).",
        "synth_none": "No source could be read for this question.",
        "synth_off_topic": "The sources read say nothing that fits this question closely "
        "enough to quote.",
        "synth_carried": "The sources are in English, so they were matched on the words of "
        "the question that carry over ({terms}); the quotes below are in English.",
        "synth_english": "The sources are in English; the quotes below are in English.",
        "synth_reasoning": "Extractive synthesis: {sentences} sentences from {cited} of "
        "{total} sources, ranked by BM25 relevance, near-duplicates removed.",
        # clarify
        "clarify_scope": "Which aspect of “{subject}” matters most to you (definition, "
        "how it works, examples, pitfalls)?",
        "clarify_period": "Is there a time period or version of “{subject}” you care about?",
        "clarify_depth": "How deep should the answer go: a short overview or a detailed "
        "technical report?",
        "clarify_reason_short": "The question is short or ambiguous.",
        "clarify_reason_clear": "The question is specific enough to start.",
        "clarify_reason_answered": "Clarifications were already given.",
        # plan
        "topic_definition": "Definition of {subject}",
        "topic_key_concepts": "Key concepts: {phrase}",
        "topic_how_it_works": "How it works: {subject}",
        "topic_examples": "Examples: {phrase}",
        "topic_pitfalls": "Pitfalls and edge cases: {phrase}",
        "topic_comparison": "{a} compared with {b}",
        "topic_when_to_use": "When to use {subject}",
        "q_definition": "definition",
        "q_key_concepts": "key concepts",
        "q_how_it_works": "how it works",
        "q_examples": "examples",
        "q_pitfalls": "pitfalls",
        "q_comparison": "difference",
        "q_when_to_use": "when to use",
        "q_overview": "overview",
        "q_explained": "explained",
        "plan_summary": "{count} topics for “{query}”.",
        "plan_rationale": "Covers the {aspect} aspect of the question.",
        # agents
        "thought_broad": "Start broad: search the topic together with the question.",
        "thought_narrow": "Narrow down with the topic's own query.",
        "thought_reformulate": "The last search found nothing new; reformulate.",
        "thought_scrape": "Read the best unread result.",
        "thought_done": "Enough material gathered (or step budget reached).",
        "finding_none": "Nothing relevant was found for this topic.",
        "finding_notes": "{pages} pages read, {findings} key findings",
        # supervisor
        "todo_instruction": "Dig deeper into “{topic}”: find more specific evidence.",
        "supervise_notes": "Coverage: {covered} of {total} topics covered; {new} new todos.",
        # follow-up questions
        "fq_relate": "How does {phrase} relate to {subject}?",
        "fq_pitfalls": "What are common pitfalls with {phrase}?",
        "fq_when": "When should {phrase} be used?",
        "fq_examples": "What are practical examples of {phrase}?",
        "fq_generic_examples": "What are practical examples of {subject}?",
        "fq_generic_pitfalls": "What are common mistakes with {subject}?",
        "fq_generic_alternatives": "What alternatives to {subject} exist?",
        "fq_source": "What does “{phrase}” say about {subject}?",
        "fq_gap": "What do other sources say about “{phrase}”?",
    },
    "ru": {
        "open_questions": "Открытые вопросы",
        "limitations": "Ограничения",
        "method": "Методика",
        "scope": "Охват",
        "contrast_heading": "Официальные и общественные источники в сравнении",
        "contrast_official": "Официальные источники (уровень 1):",
        "contrast_community": "Источники сообщества (уровень 5):",
        "contrast_none": "источников этого уровня прочитано не было, так что сопоставлять "
        "не с чем.",
        "scope_body": "Отчёт охватывает только то, что прочитанные источники говорят по "
        "вопросу; то, о чём они молчат, перечислено в разделе «Открытые вопросы».",
        "deep_search_heading": "Дополнительные сведения из глубокого поиска",
        "report_title": "{subject}: исследовательский отчёт",
        "summary_intro": "Этот отчёт отвечает на вопрос «{query}» по {sources} источникам "
        "и {topics} темам.",
        "summary_empty": "Ни один источник по вопросу «{query}» прочитать не удалось, "
        "поэтому выводов в отчёте нет.",
        "conclusion_covered": "Лучше всего подтверждены темы: {topics}.",
        "conclusion_thin": "Ни один раздел не опирается больше чем на один источник.",
        "sources_count": "источников: {n}",
        "conclusion_confidence": "Общая уверенность: {confidence}; процитировано источников: "
        "{sources}.",
        "conclusion_gaps": "Остались открытыми: {gaps}.",
        "open_questions_body": "Прочитанные источники не раскрыли следующие аспекты: {gaps}.",
        "open_questions_none": "Прочитанные источники охватили все запланированные темы; "
        "вопросы ниже указывают на смежные аспекты.",
        "engine_note": "Отчёт написан офлайн экстрактивным движком по локальному корпусу "
        "«{corpus}» (документов: {documents}), без языковой модели: каждое предложение "
        "разделов — цитата из указанного источника на языке корпуса, и утверждения не "
        "проверялись за пределами этих источников.",
        "limitations_thin": "Доступно только результатов исследования: {findings}, поэтому "
        "охват неполный.",
        "clarification_timed_out": "Уточняющие вопросы остались без ответа, поэтому "
        "исследование использовало рамки по умолчанию.",
        "method_body": "Источники ранжированы по BM25, предложения отобраны методом Maximal "
        "Marginal Relevance, почти одинаковые предложения удалены.",
        "confidence_high": "высокая",
        "confidence_medium": "средняя",
        "confidence_low": "низкая",
        "answer_intro": "Из локального справочника ({titles}):",
        "answer_none": "В локальном справочнике нет ответа на этот вопрос; офлайн-ответы "
        "в чате берутся только из локального справочника.",
        "answer_reasoning": "Офлайн-ответ, извлечённый из документов справочника: {docs}.",
        "answer_carried": "Локальный справочник написан на английском, поэтому поиск шёл по "
        "словам вопроса, которые в нём встречаются ({terms}); цитаты ниже — на английском.",
        "answer_untranslatable": "Локальный справочник написан на английском, а в вопросе нет "
        "английских терминов, по которым его можно искать; задайте вопрос ещё раз, назвав "
        "конструкцию по-английски (например, «with» или «yield»).",
        "synth_none": "Не удалось прочитать ни одного источника по этому вопросу.",
        "synth_off_topic": "В прочитанных источниках нет ничего, что подходило бы к этому "
        "вопросу достаточно близко для цитаты.",
        "synth_carried": "Источники написаны на английском, поэтому они подобраны по словам "
        "вопроса, которые в них встречаются ({terms}); цитаты ниже — на английском.",
        "synth_english": "Источники написаны на английском; цитаты ниже — на английском.",
        "synth_reasoning": "Экстрактивный синтез: предложений {sentences} из {cited} "
        "источников (всего {total}), ранжирование BM25, дубликаты удалены.",
        "clarify_scope": "Какой аспект темы «{subject}» важнее всего (определение, принцип "
        "работы, примеры, подводные камни)?",
        "clarify_period": "Важен ли определённый период или версия для темы «{subject}»?",
        "clarify_depth": "Насколько подробным должен быть ответ: краткий обзор или "
        "детальный технический отчёт?",
        "clarify_reason_short": "Вопрос короткий или неоднозначный.",
        "clarify_reason_clear": "Вопрос достаточно конкретен, чтобы начать.",
        "clarify_reason_answered": "Уточнения уже получены.",
        "topic_definition": "Определение: {subject}",
        "topic_key_concepts": "Ключевые понятия: {phrase}",
        "topic_how_it_works": "Как это работает: {subject}",
        "topic_examples": "Примеры: {phrase}",
        "topic_pitfalls": "Подводные камни: {phrase}",
        "topic_comparison": "Сравнение: {a} и {b}",
        "topic_when_to_use": "Когда использовать: {subject}",
        "q_definition": "определение",
        "q_key_concepts": "ключевые понятия",
        "q_how_it_works": "как работает",
        "q_examples": "примеры",
        "q_pitfalls": "ошибки",
        "q_comparison": "разница",
        "q_when_to_use": "когда использовать",
        "q_overview": "обзор",
        "q_explained": "объяснение",
        "plan_summary": "Тем для вопроса «{query}»: {count}.",
        "plan_rationale": "Раскрывает аспект вопроса: {aspect}.",
        "thought_broad": "Начать широко: искать тему вместе с вопросом.",
        "thought_narrow": "Сузить поиск собственным запросом темы.",
        "thought_reformulate": "Последний поиск ничего нового не дал; переформулировать.",
        "thought_scrape": "Прочитать лучший непрочитанный результат.",
        "thought_done": "Материала достаточно (или исчерпан лимит шагов).",
        "finding_none": "По этой теме ничего релевантного не найдено.",
        "finding_notes": "Прочитано страниц: {pages}, ключевых выводов: {findings}",
        "todo_instruction": "Углубиться в тему «{topic}»: найти более конкретные данные.",
        "supervise_notes": "Покрытие: {covered} из {total} тем; новых задач: {new}.",
        "fq_relate": "Как {phrase} связано с темой «{subject}»?",
        "fq_pitfalls": "Какие типичные ошибки связаны с {phrase}?",
        "fq_when": "Когда стоит использовать {phrase}?",
        "fq_examples": "Какие есть практические примеры для {phrase}?",
        "fq_generic_examples": "Какие есть практические примеры для темы «{subject}»?",
        "fq_generic_pitfalls": "Какие типичные ошибки встречаются в теме «{subject}»?",
        "fq_generic_alternatives": "Какие есть альтернативы для темы «{subject}»?",
        "fq_source": "Что говорится в «{phrase}» о теме «{subject}»?",
        "fq_gap": "Что говорят другие источники о теме «{phrase}»?",
    },
}

# Agent profiles: (name, specialization, working style, source preferences) per language.
PROFILES: Final[dict[str, list[tuple[str, str, str, list[str]]]]] = {
    "en": [
        (
            "Technical expert",
            "precise definitions and mechanisms",
            "reads reference documentation closely",
            ["reference documentation", "specifications"],
        ),
        (
            "Practical guide",
            "usage patterns and examples",
            "looks for worked examples",
            ["tutorials", "reference documentation"],
        ),
        (
            "Critical analyst",
            "limitations, pitfalls and edge cases",
            "checks claims against several sources",
            ["specifications", "issue trackers"],
        ),
        (
            "Historian",
            "origins and evolution",
            "traces changes across versions",
            ["release notes", "proposals"],
        ),
        (
            "Comparative analyst",
            "alternatives and trade-offs",
            "contrasts options side by side",
            ["reference documentation", "reviews"],
        ),
        (
            "Synthesizer",
            "connections between topics",
            "summarises across sources",
            ["overviews", "reference documentation"],
        ),
    ],
    "ru": [
        (
            "Технический эксперт",
            "точные определения и механизмы",
            "внимательно читает справочную документацию",
            ["справочная документация", "спецификации"],
        ),
        (
            "Практик",
            "приёмы использования и примеры",
            "ищет разобранные примеры",
            ["руководства", "справочная документация"],
        ),
        (
            "Критический аналитик",
            "ограничения, подводные камни и крайние случаи",
            "сверяет утверждения по нескольким источникам",
            ["спецификации", "трекеры задач"],
        ),
        (
            "Историк",
            "происхождение и развитие",
            "прослеживает изменения между версиями",
            ["примечания к выпускам", "предложения"],
        ),
        (
            "Сравнительный аналитик",
            "альтернативы и компромиссы",
            "сопоставляет варианты",
            ["справочная документация", "обзоры"],
        ),
        (
            "Синтезатор",
            "связи между темами",
            "обобщает по нескольким источникам",
            ["обзоры", "справочная документация"],
        ),
    ],
}

# Which decomposition templates a query type uses, in order of priority.
DECOMPOSITIONS: Final[dict[str, list[str]]] = {
    "definition": [
        "definition",
        "key_concepts",
        "how_it_works",
        "examples",
        "when_to_use",
        "pitfalls",
    ],
    "how_to": ["how_it_works", "key_concepts", "examples", "pitfalls", "when_to_use", "definition"],
    "comparison": [
        "definition",
        "comparison",
        "key_concepts",
        "when_to_use",
        "pitfalls",
        "examples",
    ],
    "why": ["definition", "how_it_works", "key_concepts", "pitfalls", "when_to_use", "examples"],
    "list": ["key_concepts", "examples", "definition", "when_to_use", "pitfalls", "how_it_works"],
    "fact": ["definition", "key_concepts", "examples", "how_it_works", "pitfalls", "when_to_use"],
    "open": ["definition", "key_concepts", "how_it_works", "examples", "pitfalls", "when_to_use"],
}


def texts_for(language: str) -> dict[str, str]:
    """The template dictionary for ``language`` (English when we have none)."""
    return TEXTS.get((language or "en").split("-")[0].lower(), TEXTS["en"])


def profiles_for(language: str) -> list[tuple[str, str, str, list[str]]]:
    return PROFILES.get((language or "en").split("-")[0].lower(), PROFILES["en"])


def fixed_headings() -> frozenset[str]:
    """Headings the offline writer adds itself (any language): they carry no citations."""
    return frozenset(
        texts[key]
        for texts in TEXTS.values()
        for key in ("open_questions", "limitations", "method", "scope", "contrast_heading")
    )


def topic_heading(title: str, language: str) -> str:
    """A report heading for a planned topic: what it is about, without the plan's template
    ("Pitfalls and edge cases: objects, values and types" -> "Objects, values and types").

    The template names the aspect a topic was *planned* to cover; an extractive writer
    cannot promise its quotes cover that aspect, so the heading names only the subject."""
    texts = texts_for(language)
    for key, template in texts.items():
        if not key.startswith("topic_") or key == "topic_comparison":
            continue
        head, _, tail = template.partition("{")
        rest = tail.partition("}")[2]
        if (head or rest) and title.startswith(head) and title.endswith(rest):
            core = title[len(head) : len(title) - len(rest)].strip()
            if core:
                return core[:1].upper() + core[1:]
    return title
