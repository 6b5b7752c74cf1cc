"""The English words claims are read by (:mod:`loregraph.ingest.clauses.claims`): the verbs that say
a fact changed, stopped or is only intended, the words that stand for the speaker, and the
dependency labels and prepositions a value is found under. Kept few and named: each entry
is a general word of English, never a name from a question or a benchmark."""

from __future__ import annotations

CHANGE_VERBS = frozenset(
    {
        "move",
        "migrate",
        "switch",
        "change",
        "upgrade",
        "downgrade",
        "relocate",
        "transfer",
        "swap",
        "replace",
        "leave",
        "quit",
        "bump",
        "raise",
        "lower",
        "increase",
        "reduce",
        "update",
        "rename",
        "rewrite",
        "rebuild",
        "promote",
        "demote",
        "port",
    }
)
"""Verbs (lemmas) that say a fact changed."""
FROM_VERBS = CHANGE_VERBS | {"go"}
"""Verbs whose "from X" is what a change leaves ("went from $9 to $12"; "go" alone is no
change: "went to a conference")."""
UNSURE_VERBS = frozenset(
    {"plan", "propose", "want", "like", "consider", "hope", "intend", "suggest", "think"}
)
"""Verbs whose complement is only an intention or an idea ("would like to join")."""
MODALS = frozenset({"would", "could", "might", "may", "should", "shall", "must"})
STOP_VERBS = frozenset({"stop", "cease", "quit"})
ASIDE = frozenset({"we", "i", "you", "they", "us", "he", "she", "it", "someone", "team"})
SUBJECTS = frozenset({"nsubj", "nsubjpass"})
OBJECTS = frozenset({"dobj", "obj", "attr", "oprd", "acomp"})
VALUE_PREPS = frozenset(
    {
        "in",
        "on",
        "at",
        "with",
        "to",
        "onto",
        "into",
        "for",
        "by",
        "from",
        "under",
        "as",
        "via",
        "through",
    }
)
CHANGE_NOUNS = ("upgrade", "migration", "switchover", "move")
"""Nouns that name a change ("After this week's upgrade, …")."""
LEAVE_VERBS = frozenset({"leave", "quit", "cancel", "drop", "ditch", "abandon"})
"""Verbs whose object is what a change leaves behind ("left GitHub", "dropped Celery")."""
REPLACE_VERBS = frozenset({"replace", "swap", "trade", "exchange"})
"""Verbs of putting one thing in another's place ("replaced Redis with Valkey", "traded
RabbitMQ for NATS")."""
NOW_WORDS = frozenset({"now", "nowadays"})
NOW_PAIRS = frozenset({("as", "of"), ("these", "days")})
"""Words and word pairs that say what holds from now on."""
SET_VERBS = frozenset({"set", "configure"})
"""Verbs that state a setting's value with "to" or "at" ("is set to 45 s")."""
LEAVE_PHRASES = frozenset({"give up"})
"""Verbs with a particle that leave their object behind ("gave up Spanish")."""
THIRD_PERSON = frozenset({"he", "she", "they", "it"})
"""Pronouns that stand for the clause before's anchor ("he is seeing Iris now")."""
USE_VERBS = frozenset({"use", "choose", "pick", "adopt"})
"""Verbs whose "for" names what a speaker's choice is about ("We use Express for the API
server")."""
