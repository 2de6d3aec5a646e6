"""Russian words of the report: its labels (``markdown.py``) and its own lines (``limits_text.py``).

Every language has the English keys with the same ``{placeholders}`` (a unit test
checks it), so a key added to one module must be added to each of them.
"""

from __future__ import annotations

from typing import Final

BUDGET: Final = "исчерпан бюджет токенов или стоимости"

TEXT: Final[dict[str, str]] = {
    "phase_failed": "этап «{phase}» завершился ошибкой ({error})",
    "deep_search_failed": "глубокий поиск завершился ошибкой: {error}",
    "agent_failed": "агент {agent_id} не справился с темой «{topic}»: {error}",
    "topic_not_researched": "тема {topic_id} ({topic}) была запланирована, но не исследована",
    "budget_no_research": (
        "{budget}: исследование не проводилось, бюджета хватило только на отчёт"
    ),
    "budget_topics_skipped": "{budget}: не исследованы темы: {topics}",
    "budget_stopped": "{budget}: исследование остановлено",
    "budget_reviews_skipped": "{budget}: проверки супервизора пропущены",
    "based_only": "Отчёт основан только на данных, собранных до этих ограничений.",
    "clarification_unanswered": (
        "На уточняющие вопросы не ответили до истечения времени ожидания; "
        "исследование велось по исходному вопросу."
    ),
    "thin": "Данных оказалось мало: отчёт короче {chars} символов.",
    "critic": "Рецензент: {issue}",
    "plan_approved": "Пользователь утвердил план исследования до его начала.",
    "plan_edited": "Пользователь изменил план исследования до его начала: {changes}.",
    "plan_timed_out": (
        "План исследования никто не утвердил до истечения времени ожидания; "
        "исследование шло по предложенному плану."
    ),
    "methodology": (
        "Перед написанием проанализировано находок: {findings}, источников: {sources}; "
        "рассуждение аналитика: {reasoning}. {searches} Критик проверяет каждую версию на "
        "логику и источники."
    ),
    "methodology_searched": "Для недостающих сведений был проведён ещё один раунд поиска.",
    "reasoning_induction": "индукция (общие выводы из нескольких источников)",
    "reasoning_deduction": "дедукция (из установленных фактов)",
    "reasoning_abduction": "абдукция (лучшее объяснение среди альтернатив)",
    "reasoning_mixed": "смешанное (индукция, дедукция и абдукция)",
    "minimal_title": "Незавершённое исследование: {query}",
    "minimal_summary": (
        "Исследование не удалось завершить. Этот минимальный отчёт фиксирует, "
        "что произошло, чтобы ничего не потерялось. Причина: {cause}"
    ),
    "minimal_asked": "Что было спрошено",
    "minimal_failed": "Что не удалось",
    "minimal_found": "Что было найдено до сбоя",
    "minimal_nothing": "Находок не записано.",
    "minimal_conclusion": ("Повторите исследование; файлы памяти сессии сохранены для проверки."),
    "minimal_note": "Минимальный отчёт: {cause}",
    "draft_note": (
        "Не удалось написать отчёт; это черновик, который супервизор вёл во время исследования."
    ),
    "draft_conclusion": (
        "Это черновик исследования, а не готовый отчёт: составить отчёт не удалось."
    ),
    "citations_removed": "удалены ссылки на источники, не полученные в этой сессии ({numbers})",
    "citations_dropped": "исключено источников, не полученных в этой сессии: {count}",
    "citations_checked": "Проверка ссылок: {parts}; уверенность понижена.",
    "unsourced": (
        "Для этого отчёта не удалось прочитать ни одного источника: он не подкреплён ссылками."
    ),
    # the corrective judge, per topic (shared/usecases/research/coverage.py)
    "topic_on_collection": (
        "«{topic}» опирается только на ваши коллекции: они покрывают тему (цитат в "
        "подтверждение: {quotes})."
    ),
    "topic_on_web": (
        "«{topic}» исследована и в вебе: ваши коллекции её не покрывают (цитат в "
        "подтверждение: {quotes})."
    ),
    "topic_not_covered": (
        "«{topic}» опирается на ваши коллекции, хотя они её не покрывают (цитат в "
        "подтверждение: {quotes}); веб по запросу не использовался."
    ),
    "pages_navigation": "Найденные страницы были в основном навигацией или оглавлениями.",
    "pages_lack": "Нет на найденных страницах, а значит, возможно, и в ответе: {wanted}.",
    "lack_definition": "определение",
    "lack_steps": "пошаговые инструкции",
    "lack_code": "примеры кода",
    "topics_uncovered": "Найденные страницы не охватывают: {topics}.",
}

# The phases a status names (``Progress.phase``), as a reader would call them.
PHASES: Final[dict[str, str]] = {
    "deep_search": "глубокий поиск",
    "clarifying": "уточнение вопроса",
    "waiting_clarification": "уточнение вопроса",
    "planning": "планирование",
    "waiting_plan_approval": "утверждение плана",
    "researching": "исследование",
    "supervising": "проверка находок",
    "compressing": "сжатие находок",
    "writing_report": "написание отчёта",
    "reviewing": "рецензирование",
    "analyst_analyzing": "анализ",
    "critic_reviewing": "проверка критиком",
    "rendering_pdf": "создание PDF",
}

# The Markdown's fixed headings and labels (``shared/adapters/report/markdown.py``).
LABELS: Final[dict[str, str]] = {
    "query": "Запрос",
    "date": "Дата",
    "mode": "Режим",
    "executive_summary": "Краткое содержание",
    "conclusion": "Заключение",
    "sources": "Источники",
    "follow_up": "Дополнительные вопросы",
    "key_points": "Ключевые моменты",
    "answer": "Ответ",
    "note": "Примечание",
    "limitations": "Ограничения",
    "methodology": "Методология",
    "confidence": "Уверенность",
    "quality": "Оценка качества исследования",
    "also_consulted": "Также просмотрено",
    "follows_up": "Продолжение исследования",
    "tier": "уровень",
    "high": "высокая",
    "medium": "средняя",
    "low": "низкая",
}
