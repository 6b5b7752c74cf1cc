"""When one claim ends or restates another (the rules of :mod:`loregraph.ingest.facts.claim_ends`):
a change that names what it leaves, a change or a value of the same anchor and attribute,
another amount of one thing said the same way, and the comparisons of names, values and
attributes they rest on."""

from __future__ import annotations

import re

from loregraph.ingest.clauses.model import Claim
from loregraph.models import name_key


def restates(new: Claim, old: Claim) -> bool:
    """Whether claim ``new`` states again the value of claim ``old`` ("moved back to
    Turin" for "lives in Turin"): one anchor, one value, attributes that fit."""
    if not new.value or not old.value or not same_name(new.anchor, old.anchor):
        return False
    if not same_value(new.value, old.value):
        return False
    return not new.attribute or not old.attribute or _overlap(new.attribute, old.attribute)


def changes(new: Claim, old: Claim) -> bool:
    """Whether claim ``new``, said later, ends what claim ``old`` said.

    * a change that names what it leaves behind ("from Berlin", "replaced Redis", "instead
      of GBP", "no longer uses jQuery") ends an older claim about a name the new sentence
      mentions whose sentence names what was left;
    * otherwise only a claim about the same anchor can end, and only for another value:
      a change ("moved to", "switched to", "now") ends a claim of a fitting attribute (they
      share an attribute noun, or one has none and the two values are of one kind: two
      numbers, two versions of one name, two names); a statement of a value with "be"
      ("The upload limit is 25 MB") ends an older one of the same attribute, or an older
      number named by that attribute ("listens on port 8080" for "The API port is 9090").
    """
    if new.old:
        return (
            names_in(old.anchor, new.sentence)
            and names_in(new.old, old.sentence)
            and name_key(new.old) != name_key(old.anchor)
        )
    if not old.value or not same_name(new.anchor, old.anchor):
        return False
    if not new.value:  # "Yusuf Ali changed teams": the team he was on is no longer his
        return (
            new.change
            and bool(new.attribute and old.attribute)
            and _overlap(new.attribute, old.attribute)
        )
    if same_value(new.value, old.value):
        return False
    if new.change:
        if new.attribute and old.attribute:
            return _overlap(new.attribute, old.attribute)
        kind = new.thing in new.attribute  # "switched banks": the change names its kind
        if kind and not old.attribute and new.thing[:4] not in _stems(_words(old.sentence)):
            return False  # "switched banks to Monzo" ends a bank, not "drives a Seat Ibiza"
        return _kinds_fit(new, old) and not _role(old.value)
    if _same_quantity(new, old):  # "has 16 workers" after "has 8 workers"
        return True
    if new.copular and new.attribute and _numbers(new.value) and _numbers(old.value):
        # "The API port is 9090" after "The API listens on port 8080": the old value names
        # the attribute with its number
        held = _stems((*old.attribute, *name_key(old.value).split()))
        return _stems(new.attribute) <= held
    if old.copular and old.attribute and _numbers(new.value) and _numbers(old.value):
        # "The API uses a 45 s timeout" after "The API timeout is 30 s": the new value names
        # the old attribute with its number, and nothing else ("a 5 s connect timeout")
        named = _stems(_unit(new.value))
        return _stems(old.attribute) <= named <= _stems((*old.attribute, *_unit(old.value)))
    return (
        new.copular
        and old.copular
        and bool(new.attribute)
        and _stems(new.attribute) == _stems(old.attribute)
    )


def _same_quantity(new: Claim, old: Claim) -> bool:
    """Another amount of one thing, said the same way: one verb (or both a value of
    "be"), the same attribute and object, and numbers of one unit that differ ("keeps logs
    for 30 days" after "for 14 days", "is on version 3.2" after "version 3.1"; not
    "keeps backups for 30 days")."""
    if (new.verb, new.thing) != (old.verb, old.thing) and not (new.copular and old.copular):
        return False
    if _stems(new.attribute) != _stems(old.attribute):
        return False
    a, b = _numbers(new.value), _numbers(old.value)
    return bool(a and b) and a != b and _unit(new.value) == _unit(old.value)


def _unit(value: str) -> tuple[str, ...]:
    """A value's words that are not numbers ("days" of "14 days")."""
    return tuple(w for w in name_key(value).split() if not any(ch.isdigit() for ch in w))


def same_name(a: str, b: str) -> bool:
    """Two anchors name one thing: equal, or the shorter, of two words or more, begins
    the longer ("Juniper Row Studio", "Juniper Row Studio Ltd")."""
    ka, kb = sorted((name_key(a), name_key(b)), key=len)
    if not ka or not kb:
        return False
    return ka == kb or (len(ka.split()) > 1 and f"{kb} ".startswith(f"{ka} "))


def _kinds_fit(new: Claim, old: Claim) -> bool:
    """Values of one kind: two numbers; a version and a name, or two versions of one
    name; a bare number for a version whose name the new sentence gives ("Kestrel's Redis
    was upgraded to 7.2" for "Redis 6")."""
    kn, ko = value_kind(new.value), value_kind(old.value)
    if kn == "number" or ko == "number":
        if kn == ko:
            return True
        version = ko if kn == "number" else kn
        return (
            kn == "number"
            and version.startswith("version:")
            and names_in(version.removeprefix("version:"), new.sentence)
        )
    if kn.startswith("version:") and ko.startswith("version:"):
        return kn == ko
    return True


def _role(value: str) -> bool:
    """A value that is a role someone holds of something ("wife of Jonathan Harker", "CTO
    of Sablefish Games"): a change that names no attribute ("moved to Exeter") leaves it
    alone; one that names what it leaves ("left Sablefish Games") still ends it."""
    words = value.split()
    return len(words) > 2 and words[0][:1].islower() and " of " in f" {value} "


def names_in(name: str, text: str) -> bool:
    """The proper-name words of ``name`` (all its words if it has none) are in ``text``."""
    words = name_key(name).split()
    named = [w for w, raw in zip(words, name.split(), strict=False) if raw[:1].isupper()]
    wanted = set(named or words)
    return bool(wanted) and wanted <= set(name_key(text).split())


def same_value(a: str, b: str) -> bool:
    """Two values are one: the same numbers ("08:00" and "8 am"), or, without numbers,
    the same words or one's words inside the other's ("Kubernetes", "its Kubernetes
    cluster")."""
    na, nb = _numbers(a), _numbers(b)
    if na or nb:
        return na == nb
    ka, kb = name_key(a), name_key(b)
    return bool(ka and kb) and (f" {ka} " in f" {kb} " or f" {kb} " in f" {ka} ")


def value_kind(value: str) -> str:
    """``number`` (a value that is mostly a number: "30 s", "€650"), ``version:<name>``
    ("Python 3.12"), or ``name``."""
    words = value.split()
    if not _numbers(value):
        return "name"
    named = [w for w in words if not any(ch.isdigit() for ch in w) and w[:1].isupper()]
    return f"version:{name_key(' '.join(named))}" if named else "number"


def _numbers(text: str) -> tuple[str, ...]:
    found = re.findall(r"\d+(?:[.,:]\d+)*", text)
    return tuple((n.lstrip("0") or "0").removesuffix(":00") for n in found)


def _words(text: str) -> tuple[str, ...]:
    return tuple(name_key(text).split())


def _stems(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w[:4] for w in words)


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Attributes of one thing: they share a word, and only one side has words the other
    lacks ("newsletter day" and "newsletter"; not "docs theme" and "default theme")."""
    sa, sb = _stems(a), _stems(b)
    return bool(sa & sb) and not (sa - sb and sb - sa)
