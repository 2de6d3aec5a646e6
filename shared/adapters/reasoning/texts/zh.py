"""Chinese (simplified) wording of the offline reasoner (keys and placeholders as in ``en``).

Quotes are “…” and punctuation is full-width; a space separates Chinese from
numbers and Latin words, as most Chinese technical writing does.
"""

from __future__ import annotations

from typing import Final

from shared.adapters.reasoning.texts import Profile

TEXTS: Final[dict[str, str]] = {
    # report headings
    "open_questions": "未解决的问题",
    "limitations": "局限性",
    "method": "引文的选取方式",
    "scope": "范围",
    "contrast_heading": "官方来源与社区来源对比",
    "contrast_official": "官方来源（等级 1）指出：",
    "contrast_community": "社区来源（等级 5）指出：",
    "contrast_none": "未读到该等级的任何来源，因此无法与另一方对照。",
    "scope_body": "本报告只涵盖所读来源对该问题的论述；来源未提及的内容列在“未解决的问题”中。",
    "deep_search_heading": "深度搜索的补充证据",
    "report_title": "{subject}：研究报告",
    # report prose
    "summary_intro": "本报告基于 {sources} 个来源、围绕 {topics} 个主题回答“{query}”。",
    "summary_uncited": "已为“{query}”读取 {read} 个来源，但其中没有可供本抽取式引擎引用的、"
    "关于该问题本身的段落，因此本报告未引用任何来源。",
    "summary_near": "来源只与问题相近：为“{query}”读取的 {read} 个来源都不是关于该问题本身的，"
    "因此以下段落取自最接近的来源（{title}），可能只部分回答了问题。",
    "summary_empty": "未能读取关于“{query}”的任何来源，因此本报告没有结论。",
    "conclusion_covered": "证据最充分的方面：{topics}。",
    "conclusion_thin": "没有任何章节依据超过一个来源。",
    "sources_count": "{n} 个来源",
    "conclusion_cited": "共引用 {sources} 个来源。",
    "conclusion_gaps": "仍待解决的方面：{gaps}。",
    "open_questions_body": "所读来源未涵盖以下方面：{gaps}。",
    "open_questions_none": "所读来源涵盖了所有计划的主题；下面的后续问题指向相关方面。",
    "engine_note": "本报告由抽取式引擎离线撰写，依据本地语料库“{corpus}”（{documents} 篇文档），"
    "未使用语言模型：各章节中的每个句子都是以原文语言引用的所注来源，且未在这些来源之外核实任何论断。",
    "limitations_thin": "仅有 {findings} 条研究结果可用，因此覆盖面有限。",
    "clarification_timed_out": "澄清问题未获回答，因此研究采用了默认范围。",
    "method_body": "来源按 BM25 排序，句子通过 Maximal Marginal Relevance 选取，"
    "并去除了近似重复的句子。",
    # chat / search
    "answer_intro": "摘自本地参考资料（{titles}）：",
    "answer_none": "本地参考资料中没有关于此问题的内容；离线聊天的回答只来自本地参考资料。",
    "answer_reasoning": "离线抽取式回答，依据 {docs} 篇本地参考文档。",
    "answer_carried": "本地参考资料为英文，因此按问题中可通用的词（{terms}）进行搜索；"
    "以下引文为英文。",
    "answer_untranslatable": "本地参考资料为英文，而问题中没有可用于搜索的英文术语；"
    "请用英文写出相关语法结构后重新提问（例如“with”或“yield”）。",
    "synth_none": "未能读取关于此问题的任何来源。",
    "synth_off_topic": "所读来源中没有与此问题足够贴近、可供引用的内容。",
    "synth_carried": "来源为英文，因此按问题中可通用的词（{terms}）进行匹配；以下引文为英文。",
    "synth_english": "来源为英文；以下引文为英文。",
    "synth_reasoning": "抽取式综合：从 {total} 个来源中的 {cited} 个选取 {sentences} 个句子，"
    "按 BM25 相关度排序，已去除近似重复。",
    # clarify
    "clarify_scope": "关于“{subject}”，您最关心哪个方面（定义、工作原理、示例、常见陷阱）？",
    "clarify_period": "您是否关注“{subject}”的某个时间段或版本？",
    "clarify_depth": "回答需要多深入：简短概述还是详细的技术报告？",
    "clarify_reason_short": "问题较短或含义不明确。",
    "clarify_reason_clear": "问题足够具体，可以开始。",
    "clarify_reason_answered": "已提供澄清。",
    # plan
    "topic_definition": "定义：{subject}",
    "topic_key_concepts": "核心概念：{phrase}",
    "topic_how_it_works": "工作原理：{subject}",
    "topic_examples": "示例：{phrase}",
    "topic_pitfalls": "陷阱与边界情况：{phrase}",
    "topic_comparison": "{a}与{b}的比较",
    "topic_when_to_use": "适用场景：{subject}",
    "topic_phrase": "{subject}",
    "q_definition": "定义",
    "q_key_concepts": "核心概念",
    "q_how_it_works": "工作原理",
    "q_examples": "示例",
    "q_pitfalls": "陷阱",
    "q_comparison": "区别",
    "q_when_to_use": "何时使用",
    "q_overview": "概述",
    "q_explained": "详解",
    "plan_summary": "关于“{query}”的 {count} 个主题。",
    "plan_rationale": "涵盖问题的“{aspect}”方面。",
    # agents
    "thought_broad": "先广泛搜索：将主题与问题一起搜索。",
    "thought_narrow": "用主题自身的查询缩小范围。",
    "thought_reformulate": "上次搜索没有新结果；换一种说法。",
    "thought_scrape": "阅读最佳的未读结果。",
    "thought_done": "已收集足够材料（或已达到步数上限）。",
    "finding_none": "未找到与此主题相关的内容。",
    "finding_notes": "已读 {pages} 个页面，{findings} 条关键发现",
    # supervisor
    "todo_instruction": "深入研究“{topic}”：寻找更具体的证据。",
    "supervise_notes": "覆盖情况：{total} 个主题中已覆盖 {covered} 个；新增 {new} 项任务。",
    # follow-up questions
    "fq_relate": "“{phrase}”与“{subject}”有什么关系？",
    "fq_pitfalls": "使用“{phrase}”时有哪些常见陷阱？",
    "fq_when": "什么时候应该使用“{phrase}”？",
    "fq_examples": "“{phrase}”有哪些实际示例？",
    "fq_generic_examples": "“{subject}”有哪些实际示例？",
    "fq_generic_pitfalls": "“{subject}”有哪些常见错误？",
    "fq_generic_alternatives": "“{subject}”有哪些替代方案？",
    "fq_source": "“{phrase}”对“{subject}”有何论述？",
    "fq_gap": "其他来源对“{phrase}”有何论述？",
    "fq_sides": "{a}和{b}",
}

# none: these templates quote the subject or set it after a label, where a task reads well
# (and only English reads a why-, yes/no or what-happens question as a statement)
TASK_TEXTS: Final[dict[str, str]] = {}
STATEMENT_TEXTS: Final[dict[str, dict[str, str]]] = {}
COMPARISON_TEXTS: Final[dict[str, str]] = {}

# Agent profiles: (name, specialization, working style, source preferences).
PROFILES: Final[list[Profile]] = [
    ("技术专家", "精确的定义与机制", "仔细阅读参考文档", ["参考文档", "规范"]),
    ("实践向导", "用法模式与示例", "寻找完整的示例", ["教程", "参考文档"]),
    ("批判分析师", "局限、陷阱与边界情况", "用多个来源核对论断", ["规范", "问题跟踪系统"]),
    ("历史学家", "起源与演变", "追踪各版本间的变化", ["发行说明", "提案"]),
    ("比较分析师", "替代方案与权衡", "并列比较各个选项", ["参考文档", "评测"]),
    ("综合者", "主题之间的联系", "跨来源归纳总结", ["概述", "参考文档"]),
]

# The citation gate's everyday words (see ``en``). Chinese is not written with spaces
# between words, so a list of single words would not match how the gate splits a
# question; left empty until the gate segments Chinese.
GATE_FRAME: Final[str] = ""
GATE_QUALIFIERS: Final[str] = ""
GATE_IDIOMS: Final[tuple[str, ...]] = ()
GATE_HOW_TO: Final[str] = r"^\s*(?:如何|怎么|怎样|怎麼)"
