"""The report's own words about how it was made, in the reader's language.

Reasoners write the report's content in the user's language; the pipeline
then adds lines of its own: the Limitations (a phase, an agent or the deep
search that failed, the budget that cut the research, topics nobody
researched, how the plan was reviewed), notes (thin evidence, unanswered
clarifying questions, a critic's unresolved issues) and, when nothing else
could be written, the minimal report. Those lines were English even in a
Russian report. Every such sentence lives here, once per language
(the languages of ``shared.report.markdown.LABELS``; anything else reads
English), built from data (``shared.payloads.Gap``) rather than from
English text, so nothing has to be translated after the fact.

Error texts (an exception's message) are quoted as raised. The live status
warnings stay English: they are for clients and operators, not readers.
"""

from __future__ import annotations

from shared.payloads import Gap

_BUDGET = {
    "en": "the token or cost budget was reached",
    "ru": "исчерпан бюджет токенов или стоимости",
    "zh": "已达到令牌或费用预算",
    "de": "das Token- oder Kostenbudget war erreicht",
    "es": "se alcanzó el presupuesto de tokens o de coste",
    "fr": "le budget de jetons ou de coût a été atteint",
}

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "phase_failed": "the {phase} phase failed ({error})",
        "deep_search_failed": "the deep search failed: {error}",
        "agent_failed": "agent {agent_id} failed on '{topic}': {error}",
        "topic_not_researched": "topic {topic_id} ({topic}) was planned but not researched",
        "budget_no_research": "{budget}: no research ran: the budget left room only for the report",
        "budget_topics_skipped": "{budget}: not researched: {topics}",
        "budget_stopped": "{budget}: research stopped",
        "budget_reviews_skipped": "{budget}: the supervisor's reviews were skipped",
        "based_only": "The report is based only on the evidence gathered before these limits.",
        "clarification_unanswered": (
            "The clarifying questions went unanswered before the timeout; "
            "the research used the original question as asked."
        ),
        "thin": "The evidence was thin: the report is shorter than {chars} characters.",
        "critic": "Critic: {issue}",
        "plan_approved": "The research plan was approved by the user before the research began.",
        "plan_edited": (
            "The research plan was edited by the user before the research began: {changes}."
        ),
        "plan_timed_out": (
            "Nobody approved the research plan before the timeout; "
            "the research followed the plan as proposed."
        ),
        "minimal_title": "Incomplete research: {query}",
        "minimal_summary": (
            "The research could not be completed. This minimal report records "
            "what happened so that nothing is lost. Cause: {cause}"
        ),
        "minimal_asked": "What was asked",
        "minimal_failed": "What failed",
        "minimal_found": "What was found before the failure",
        "minimal_nothing": "No findings were recorded.",
        "minimal_conclusion": (
            "Retry the research; the session keeps its memory files for inspection."
        ),
        "minimal_note": "Minimal report: {cause}",
    },
    "ru": {
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
        "minimal_title": "Незавершённое исследование: {query}",
        "minimal_summary": (
            "Исследование не удалось завершить. Этот минимальный отчёт фиксирует, "
            "что произошло, чтобы ничего не потерялось. Причина: {cause}"
        ),
        "minimal_asked": "Что было спрошено",
        "minimal_failed": "Что не удалось",
        "minimal_found": "Что было найдено до сбоя",
        "minimal_nothing": "Находок не записано.",
        "minimal_conclusion": (
            "Повторите исследование; файлы памяти сессии сохранены для проверки."
        ),
        "minimal_note": "Минимальный отчёт: {cause}",
    },
    "zh": {
        "phase_failed": "{phase}阶段失败（{error}）",
        "deep_search_failed": "深度搜索失败：{error}",
        "agent_failed": "代理 {agent_id} 在主题“{topic}”上失败：{error}",
        "topic_not_researched": "主题 {topic_id}（{topic}）已计划但未研究",
        "budget_no_research": "{budget}：未进行研究，预算仅够撰写报告",
        "budget_topics_skipped": "{budget}：未研究：{topics}",
        "budget_stopped": "{budget}：研究已停止",
        "budget_reviews_skipped": "{budget}：已跳过主管审阅",
        "based_only": "本报告仅基于达到这些限制之前收集的证据。",
        "clarification_unanswered": "澄清问题在超时前未得到回答；研究按原始问题进行。",
        "thin": "证据不足：报告短于 {chars} 个字符。",
        "critic": "审阅意见：{issue}",
        "plan_approved": "研究计划在研究开始前已获用户批准。",
        "plan_edited": "研究计划在研究开始前已由用户修改：{changes}。",
        "plan_timed_out": "超时前无人批准研究计划；研究按提议的计划进行。",
        "minimal_title": "未完成的研究：{query}",
        "minimal_summary": (
            "研究未能完成。本简要报告记录了所发生的情况，以免信息丢失。原因：{cause}"
        ),
        "minimal_asked": "提出的问题",
        "minimal_failed": "失败之处",
        "minimal_found": "失败前的发现",
        "minimal_nothing": "没有记录到任何发现。",
        "minimal_conclusion": "请重新运行研究；会话保留了其记忆文件以供检查。",
        "minimal_note": "简要报告：{cause}",
    },
    "de": {
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
        "plan_approved": (
            "Der Rechercheplan wurde vor Beginn der Recherche vom Benutzer freigegeben."
        ),
        "plan_edited": (
            "Der Rechercheplan wurde vor Beginn der Recherche vom Benutzer bearbeitet: {changes}."
        ),
        "plan_timed_out": (
            "Niemand hat den Rechercheplan vor Ablauf der Wartezeit freigegeben; "
            "die Recherche folgte dem vorgeschlagenen Plan."
        ),
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
            "Starten Sie die Recherche erneut; die Sitzung behält ihre Speicherdateien "
            "zur Einsicht."
        ),
        "minimal_note": "Minimalbericht: {cause}",
    },
    "es": {
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
    },
    "fr": {
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
        "based_only": (
            "Le rapport repose uniquement sur les éléments recueillis avant ces limites."
        ),
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
    },
}

# The phases a status names (``Progress.phase``), as a reader would call them.
PHASES: dict[str, dict[str, str]] = {
    "en": {
        "deep_search": "deep search",
        "clarifying": "clarification",
        "waiting_clarification": "clarification",
        "planning": "planning",
        "waiting_plan_approval": "plan approval",
        "researching": "research",
        "supervising": "supervision",
        "compressing": "compression",
        "writing_report": "report writing",
        "reviewing": "review",
        "rendering_pdf": "PDF rendering",
    },
    "ru": {
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
        "rendering_pdf": "создание PDF",
    },
    "zh": {
        "deep_search": "深度搜索",
        "clarifying": "澄清问题",
        "waiting_clarification": "澄清问题",
        "planning": "规划",
        "waiting_plan_approval": "计划审批",
        "researching": "研究",
        "supervising": "监督审查",
        "compressing": "压缩结果",
        "writing_report": "撰写报告",
        "reviewing": "审阅",
        "rendering_pdf": "生成 PDF",
    },
    "de": {
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
        "rendering_pdf": "PDF-Erstellung",
    },
    "es": {
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
        "rendering_pdf": "generación del PDF",
    },
    "fr": {
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
        "rendering_pdf": "génération du PDF",
    },
}


def _lang(language: str) -> str:
    code = language.split("-")[0].lower()
    return code if code in TEXT else "en"


def say(language: str, key: str, **fields: object) -> str:
    """The sentence ``key`` in ``language`` (English when the language has none)."""
    return TEXT[_lang(language)][key].format(**fields)


def gap_clause(gap: Gap, language: str) -> str:
    """What the run could not do, as a clause (no capital, no full stop): the writer's brief
    and the offline writer's open questions take it inside a sentence of their own."""
    lang = _lang(language)
    phase = PHASES[lang].get(gap.phase, gap.phase)
    separator = "、" if lang == "zh" else ", "
    fields = gap.model_dump() | {"phase": phase, "topics": separator.join(gap.topics)}
    return TEXT[lang][gap.kind].format(budget=_BUDGET[lang], **fields)


def sentence(clause: str, language: str) -> str:
    """``clause`` as a sentence of its own: capital first letter, a full stop unless it has one."""
    if not clause:
        return clause
    stop = "。" if _lang(language) == "zh" else "."
    text = clause[0].upper() + clause[1:]
    return text if text.endswith((".", "!", "?", "。", "！", "？")) else text + stop
