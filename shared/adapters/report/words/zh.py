"""Chinese words of the report: its labels (``markdown.py``) and its own lines (``limits_text.py``).

Every language has the English keys with the same ``{placeholders}`` (a unit test
checks it), so a key added to one module must be added to each of them.
"""

from __future__ import annotations

from typing import Final

BUDGET: Final = "已达到令牌或费用预算"

TEXT: Final[dict[str, str]] = {
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
    "methodology": (
        "撰写前分析了来自 {sources} 个来源的 {findings} 项研究发现"
        "；分析者的推理方式：{reasoning}。{searches}评审员检查每个版"
        "本的推理与来源。"
    ),
    "methodology_searched": "针对分析发现的缺失信息，又进行了一轮检索。",
    "reasoning_induction": "归纳（从多个来源得出一般结论）",
    "reasoning_deduction": "演绎（从已确立的事实推出）",
    "reasoning_abduction": "溯因（在多种解释中选择最佳解释）",
    "reasoning_mixed": "混合（归纳、演绎与溯因）",
    "minimal_title": "未完成的研究：{query}",
    "minimal_summary": ("研究未能完成。本简要报告记录了所发生的情况，以免信息丢失。原因：{cause}"),
    "minimal_asked": "提出的问题",
    "minimal_failed": "失败之处",
    "minimal_found": "失败前的发现",
    "minimal_nothing": "没有记录到任何发现。",
    "minimal_conclusion": "请重新运行研究；会话保留了其记忆文件以供检查。",
    "minimal_note": "简要报告：{cause}",
    "draft_note": "报告撰写失败；以下是主管在研究期间撰写的研究草稿。",
    "draft_conclusion": "本报告是研究草稿，而非完成的报告：撰写者未能完成。",
    "citations_removed": "已删除引用本次会话未获取来源的标注（{numbers}）",
    "citations_dropped": "已移除 {count} 个本次会话未获取的来源",
    "citations_checked": "引用检查：{parts}；置信度已降低。",
    "unsourced": "本报告未能读取任何来源：内容没有引用支撑。",
    # the corrective judge, per topic (shared/usecases/research/coverage.py)
    "topic_on_collection": (
        "“{topic}”仅依据您的文档集：文档集涵盖了该主题（引用证据 {quotes} 条）。"
    ),
    "topic_on_web": (
        "“{topic}”也在网络上进行了研究：您的文档集未涵盖该主题（引用证据 {quotes} 条）。"
    ),
    "topic_not_covered": (
        "“{topic}”依据您的文档集，但文档集未涵盖该主题（引用证据 {"
        "quotes} 条）；应您的要求未搜索网络。"
    ),
    "pages_navigation": "找到的页面大多是导航或目录。",
    "pages_lack": "找到的页面中没有，因此回答中可能也缺少：{wanted}。",
    "lack_definition": "定义",
    "lack_steps": "分步说明",
    "lack_code": "代码示例",
    "topics_uncovered": "找到的页面未涵盖：{topics}。",
}

# The phases a status names (``Progress.phase``), as a reader would call them.
PHASES: Final[dict[str, str]] = {
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
    "analyst_analyzing": "分析",
    "critic_reviewing": "评审",
    "rendering_pdf": "生成 PDF",
}

# The Markdown's fixed headings and labels (``shared/adapters/report/markdown.py``).
LABELS: Final[dict[str, str]] = {
    "query": "查询",
    "date": "日期",
    "mode": "模式",
    "executive_summary": "执行摘要",
    "conclusion": "结论",
    "sources": "参考来源",
    "follow_up": "后续问题",
    "key_points": "要点",
    "answer": "回答",
    "note": "注意",
    "limitations": "局限性",
    "methodology": "研究方法",
    "confidence": "置信度",
    "quality": "研究质量评分",
    "also_consulted": "另外查阅",
    "follows_up": "延续的研究",
    "tier": "等级",
    "high": "高",
    "medium": "中",
    "low": "低",
}
