"""The search modes' completeness step: after each round, is the question answered?

The reasoner judges every topic of the question (named on the first round, the same
ones after) and the content the question needs; the review is kept in the session
folder as ``{name}.json`` (one per round, so a retried activity writes the same
file), and the orchestration gets the searches that would fill the gaps: one per
uncovered topic, and one per kind of content nothing read provides.
``synthesize`` attaches the last review to the answer.
"""

from __future__ import annotations

from shared.adapters.report.limits_text import listed, say
from shared.core.completeness_models import CompletenessReview
from shared.core.completeness_payloads import CompletenessIn, CompletenessOut
from shared.ports import Services
from shared.tools.lexical import unique_texts
from shared.usecases.research.answers import load_summaries


def evaluate_completeness(svc: Services, req: CompletenessIn) -> CompletenessOut:
    summaries = load_summaries(svc, req.summary_refs)
    review = svc.reasoner.evaluate_completeness(req.query, req.topics, summaries, req.language)
    ref = svc.memory.write(
        req.session_id, f"{req.name}.json", review.model_dump_json(), "application/json"
    )
    return CompletenessOut(
        review_ref=ref,
        topics=[t.topic for t in review.topics],
        covered=sum(t.covered for t in review.topics),
        gap_queries=unique_texts(review.gap_queries, skip=[req.query])[: req.n],
        missing=review.content.missing,
        navigation_only=review.content.navigation_only,
        content_queries=unique_texts(review.content_queries, skip=[req.query])[: req.n],
    )


def load_review(svc: Services, ref: str) -> CompletenessReview:
    session_id, _, name = ref.partition("/")
    return CompletenessReview.model_validate_json(svc.memory.read(session_id, name))


def shortfalls(review: CompletenessReview, language: str) -> list[str]:
    """What the answer says is missing, in its language: content the question needed,
    topics left open."""
    notes = []
    if review.content.navigation_only:
        notes.append(say(language, "pages_navigation"))
    if review.content.missing:
        wanted = [say(language, f"lack_{kind}") for kind in review.content.missing]
        notes.append(say(language, "pages_lack", wanted=listed(wanted, language)))
    open_topics = [t.topic for t in review.topics if not t.covered]
    if open_topics:
        notes.append(say(language, "topics_uncovered", topics=listed(open_topics, language)))
    return notes
