"""What of a question in another language the English corpus can match: its carried terms.

"Comment puis-je lire une environment variable ?" carries "environment" and "variable";
"Как работают менеджеры контекста и оператор with?" carries "with". The chat answer searches
for them, and the deep research plans its topics over the documents they find: the
question as written finds pages by its stray Latin letters and the model's guesses (the
embedding model was trained on English), the pdb and pickle pages for an environment
variable. A word of the question's own language that is an English word too ("comment",
"en", "ist") is one of its frame words (``gate_words``) and carries nothing.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping

from shared.adapters.reasoning.gate_words import gate_words
from shared.adapters.reasoning.relevance import CORPUS_LANGUAGE, foreign_to_corpus
from shared.tools import lexical

CARRIED_MIN_IDF = 1.0  # "Python" names every document: it carries nothing


def carried_terms(question: str, idf: Mapping[str, float], language: str) -> list[str]:
    """Python keywords and Latin-script words distinctive in the corpus (idf of at least
    ``CARRIED_MIN_IDF``), as written, but none of the question language's frame words."""
    frame = gate_words(language, CORPUS_LANGUAGE).nothing
    return [
        w
        for w in dict.fromkeys(lexical.latin_words(question))
        if lexical.normalize_token(w) not in frame
        and (keyword.iskeyword(w.lower()) or idf.get(w.lower(), 0.0) >= CARRIED_MIN_IDF)
    ]


def searched_for(question: str, idf: Mapping[str, float], language: str) -> str:
    """What to search the corpus for: the question, or for one in another language its
    carried terms ("" when none carries over)."""
    if not foreign_to_corpus(language):
        return question
    return " ".join(carried_terms(question, idf, language))
