"""The offline reasoner's chat and search writers: quotes from the corpus's documents, or the
pages a search read, that are about the question.

A chat answer quotes the documents chosen by meaning (``offline_meaning``; the best by
words without vectors); a search answer quotes the pages' summaries. Either keeps only the
sentences the citation gate admits (``offline_quotes.about_the_question``), so what it
quotes is what it cites.
"""

from __future__ import annotations

import re

from shared.adapters.reasoning import (
    offline_meaning,
    offline_quotes,
    question_terms,
    relevance,
)
from shared.adapters.reasoning.offline_report import (
    asked_again,
    cite,
    follow_up_subject,
    source_questions,
)
from shared.adapters.reasoning.offline_text import leads, named, script_language
from shared.adapters.reasoning.question_terms import carried_terms, searched_for
from shared.adapters.reasoning.templates import texts_for, texts_for_question
from shared.adapters.report.citations import CITATION_RE
from shared.adapters.search.base import Corpus
from shared.core.limits import SourcePolicy
from shared.core.report_models import SynthesizedAnswer
from shared.core.session_models import ChatMessage
from shared.core.source_models import Page, PageSummary, Source, TimeRange
from shared.tools import lexical, text_stream
from shared.tools.language import detect_language
from shared.tools.sentence_split import split_sentences

_PRONOUN_TEXT = (
    "it this that they them its these those he she him her "
    "он она оно они это этот эта эти его её ее их ним нём нем"
)
_PRONOUNS = frozenset(_PRONOUN_TEXT.split())


CHAT_DOCUMENTS = 3  # a chat answer quotes at most this many documents ...
CHAT_QUOTES = 5  # ... and this many of their sentences,
CHAT_TURN = 2  # two of a document's at a time (``offline_quotes.in_turns``)
SEARCH_TURN = 3  # a search answer's paragraph: a page's three best quotes
# a page's sentences saying what a part of the question is (``Gate.defines``), kept for the
# answer beside its best-ranked ones: "Lists are mutable sequences, …" ranks low on words
DEFINITIONS_KEPT = 2


class OfflineAnswers:
    """Chat, search and their follow-up questions, for ``OfflineReasoner``."""

    corpus: Corpus

    def _sentences(self, page: Page) -> tuple[list[str], list[list[str]]]:
        """Usable sentences of a page with their content tokens (corpus cache first)."""
        cached = self.corpus.sentences_of(page) if page.url.startswith("corpus://") else None
        if cached is None:
            sentences = split_sentences(page.text, script_language(page.text))
            tokens = [lexical.content_tokens(s) for s in sentences]
        else:
            sentences, tokens = cached
        keep = [i for i, s in enumerate(sentences) if not CITATION_RE.search(s)]
        return [sentences[i] for i in keep], [tokens[i] for i in keep]

    # -- chat and search modes ------------------------------------------------

    def answer(self, query: str, history: list[ChatMessage], language: str) -> SynthesizedAnswer:
        """Quotes from the best documents; a question in another language than the corpus
        is searched for the words that carry over (identifiers, English terms), and the
        answer says so in the user's language."""
        t = texts_for(language)
        resolved = self.rewrite_query(query, history, language)
        foreign = question_terms.foreign_to_corpus(language)
        carried = carried_terms(resolved, self.corpus.idf, language) if foreign else []
        search = " ".join(carried) if foreign else resolved
        # the documents about it by meaning, as a report cites them (``offline_meaning``)
        meant = offline_meaning.chosen(self.corpus, search, language) if search else None
        docs = [d for u in (meant or ())[:CHAT_DOCUMENTS] if (d := self.corpus.document(u))]
        docs = docs or (self.corpus.best_documents(search, CHAT_DOCUMENTS) if search else [])
        pool: list[tuple[str, list[str], Page]] = []
        numbered: list[tuple[str, int]] = []  # each sentence with its document's number
        for n, doc in enumerate(docs, start=1):
            sentences, tokens = self._sentences(doc)
            pool.extend(zip(sentences, tokens, [doc] * len(sentences), strict=True))
            numbered.extend((s, n) for s in sentences)
        focus = f"{search} {docs[0].title}" if carried and docs else resolved
        said = [p[0] for p in pool]
        ranked = lexical.rank_sentences(focus, said, len(pool), tokens=[p[1] for p in pool])
        gate = relevance.question_gate(resolved, self.corpus.idf, language)
        in_corpus = self.corpus.document_sentences
        about = offline_quotes.about_the_question(
            gate, ranked, numbered, docs, frozenset(meant or ()), in_corpus
        )
        order = range(1, len(docs) + 1)  # chosen by meaning (or words), best first
        turns = offline_quotes.in_turns(about, lambda i: numbered[i][1], order, CHAT_TURN)
        chosen = [pool[i] for quotes in turns for i, score in quotes if score > 0][:CHAT_QUOTES]
        if not chosen:
            none = t["answer_untranslatable"] if foreign else t["answer_none"]
            return SynthesizedAnswer(
                reasoning=t["answer_reasoning"].format(docs=0), answer=none, language=language
            )
        titles = list(dict.fromkeys(doc.title for _, _, doc in chosen))
        sentences = [named(s, [doc.url], self.corpus.member_of) for s, _, doc in chosen]
        intro = t["answer_intro"].format(titles="; ".join(titles))
        if carried:
            terms = ", ".join(f"“{term}”" for term in carried)
            intro = t["answer_carried"].format(terms=terms) + "\n\n" + intro
        body = intro + "\n\n" + " ".join(sentences)
        text_stream.offer_by_sentence(body)  # to the event stream, when a use case listens
        return SynthesizedAnswer(
            reasoning=t["answer_reasoning"].format(docs=len(titles)),
            answer=body,
            key_points=sentences[:3],
            sources=[],
            # from the quotes, not the intro's titles and note: this engine's words
            follow_up_questions=self.follow_up_questions(resolved, " ".join(sentences), language),
            language=language,
        )

    def _carried_note(self, query: str, picked: list[str], language: str) -> str:
        """Says, in the question's language, that the quotes are in English and were
        matched on the words that carry over, when the question is in another language."""
        quoted = detect_language(" ".join(picked), default=question_terms.CORPUS_LANGUAGE)
        foreign = question_terms.foreign_to_corpus
        if not foreign(language) or foreign(quoted):
            return ""
        t = texts_for(language)
        terms = ", ".join(f"“{term}”" for term in carried_terms(query, self.corpus.idf, language))
        return t["synth_carried"].format(terms=terms) if terms else t["synth_english"]

    def rewrite_query(self, query: str, history: list[ChatMessage], language: str) -> str:
        """Append the previous question's key phrases when the new one leans on it."""
        clean = " ".join(query.split())
        words = {w.lower() for w in re.findall(r"\w+", clean)}
        previous = next(
            (
                m.content
                for m in reversed(history)
                if m.role == "user" and m.content.strip() != clean
            ),
            None,
        )
        leans = len(lexical.content_tokens(clean)) < 3 or bool(words & _PRONOUNS)
        if previous is None or not leans:
            return clean
        extra = lexical.key_phrases([previous], 3, exclude=[clean])
        return f"{clean.rstrip('?!. ')} {' '.join(extra)}".strip() if extra else clean

    def summarize_page(self, query: str, page: Page, language: str) -> PageSummary:
        """The page's sentences nearest the question (for one in another language: nearest
        its carried terms, since its own words match no English sentence), or else its
        first sentences: not its first words, which on a library page are the module's
        index of signatures ("functools._CacheInfo(hits, misses, …) CacheInfo(…)")."""
        sentences, tokens = self._sentences(page)
        searched = searched_for(query, self.corpus.idf, language) or query
        ranked = lexical.rank_sentences(searched, sentences, 5, tokens=tokens)
        gate = relevance.question_gate(query, self.corpus.idf, language)
        defining = [s for s in sentences if gate.defines(s)][:DEFINITIONS_KEPT]
        relevant = list(dict.fromkeys([*defining, *(sentences[i] for i, _ in ranked)]))
        in_order = [sentences[i] for i in sorted(i for i, _ in ranked[:3])]
        lead = " ".join(sentences[:3]) or " ".join(page.text.split()[:60])
        summary = " ".join(in_order) or lead
        return PageSummary(
            url=page.url, title=page.title, summary=summary, relevant_sentences=relevant
        )

    def synthesize(
        self,
        query: str,
        summaries: list[PageSummary],
        language: str,
        min_words: int,
        max_words: int,
        policy: SourcePolicy = "discovery",
        time_range: TimeRange | None = None,
    ) -> SynthesizedAnswer:
        """Quotes from the summaries, which already obey ``policy`` (the selection's) and
        ``time_range`` (the searches were kept to it)."""
        t = texts_for(language)
        pool: list[tuple[str, int]] = []
        for n, summary in enumerate(summaries, start=1):
            sentences = summary.relevant_sentences or split_sentences(summary.summary)
            pool.extend((s, n) for s in sentences if not CITATION_RE.search(s))
        ranked = lexical.rank_sentences(query, [s for s, _ in pool], len(pool))
        ranked = ranked or leads([n for _, n in pool])
        gate = relevance.question_gate(query, self.corpus.idf, language)
        # a definition ranks low, or not at all, against the few sentences of the summaries
        listed = {i for i, _ in ranked}
        ranked += [(i, 0.0) for i, (s, _) in enumerate(pool) if i not in listed and gate.defines(s)]
        corpus = self.corpus.document_sentences
        meant = offline_meaning.chosen(self.corpus, query, language) or []
        ranked = offline_quotes.about_the_question(
            gate, ranked, pool, summaries, frozenset(meant), corpus
        )
        if not ranked:
            none = t["synth_off_topic"] if summaries else t["synth_none"]
            none = t["answer_untranslatable"] if gate.carries_nothing() and summaries else none
            return SynthesizedAnswer(answer=none, language=language)
        first = sorted(
            (n for n, s in enumerate(summaries, start=1) if s.url in meant),
            key=lambda n: meant.index(summaries[n - 1].url),
        )
        turns = offline_quotes.in_turns(ranked, lambda i: pool[i][1], first, SEARCH_TURN)
        taken = _within_words(turns, pool, min_words, max_words)
        urls = [summary.url for summary in summaries]
        member = self.corpus.member_of
        said = [[cite(named(s, [urls[n - 1]], member), [n]) for s, n in quotes] for quotes in taken]
        picked = [sentence for paragraph in said for sentence in paragraph]
        cited = {n for quotes in taken for _, n in quotes}
        paragraphs = [" ".join(paragraph) for paragraph in said]
        carried = self._carried_note(query, picked, language)
        answer = "\n\n".join([carried, *paragraphs] if carried else paragraphs)
        text_stream.offer_by_sentence(answer)
        return SynthesizedAnswer(
            reasoning=t["synth_reasoning"].format(
                sentences=len(picked), cited=len(cited), total=len(summaries)
            ),
            answer=answer,
            key_points=picked[:3],
            sources=[
                Source(n=n, url=s.url, title=s.title, tier=s.tier)
                for n, s in enumerate(summaries, start=1)
                if n in cited
            ],
            follow_up_questions=source_questions(
                [], [summaries[n - 1].title for n in sorted(cited)], query, language
            )
            or self.follow_up_questions(query, " ".join(picked), language),
            language=language,
        )

    def follow_up_questions(self, query: str, text: str, language: str) -> list[str]:
        t = texts_for_question(query, language)
        subject = follow_up_subject(query, language)
        ours = {t[k] for k in ("answer_untranslatable", "answer_none", "synth_off_topic")}
        said = "" if text.strip() in ours else CITATION_RE.sub(" ", text)  # not our own words
        found = lexical.key_phrases([said], 8, idf=self.corpus.idf, exclude=[query])
        phrases = [n for p in found if (n := lexical.as_named(p, said))][:4]
        # a question that keeps its frame is quoted, not set where a noun goes (fq_relate)
        forms = ("fq_relate", "fq_pitfalls", "fq_when", "fq_examples")[subject is None :]
        questions = [
            t[form].format(phrase=p, subject=subject)
            for form, p in zip(forms, phrases, strict=False)
        ]
        if subject is None:
            questions.append(asked_again(query, t))
        else:
            generic = ("fq_generic_examples", "fq_generic_pitfalls", "fq_generic_alternatives")
            questions += [t[k].format(subject=subject) for k in generic]
        return lexical.unique_texts(questions)[: max(3, min(5, len(phrases) + 1))]


def _within_words(
    turns: list[list[tuple[int, float]]], pool: list[tuple[str, int]], least: int, most: int
) -> list[list[tuple[str, int]]]:
    """The turns' quotes (sentence, source number) a search answer takes: turn by turn until
    it has ``least`` words, none that would take it past ``most``."""
    out: list[list[tuple[str, int]]] = []
    words = 0
    for quotes in turns:
        taken = []
        for i, _ in quotes:
            size = len(pool[i][0].split()) + 1  # the [n] it is cited with
            if words + size <= most:
                taken.append(pool[i])
                words += size
        if taken:
            out.append(taken)
        if words >= least:
            break
    return out
