"""The groups in-document clustering works on: candidates that share a name key, joined
into clusters (union-find) by the rules of :mod:`loregraph.ingest.resolve.cluster`.

A group's key is its core name (less any honorific, see the rules) in name words, with the
gender of a one-word name's honorific; each group keeps the mention-weighted type votes,
the genders and honorifics its names carry, and every core form it was seen under. Merging
a group into another adds all of these to the cluster's root.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from loregraph.ingest.types import CandidateEntity, ClusterRules
from loregraph.models import name_key
from loregraph.text import names
from loregraph.text.entity_types import CONCEPT, PERSON, TYPES, normalize_type


@dataclass(slots=True)
class Group:
    """Candidates that share one key; merged groups form a cluster (union-find)."""

    key: str
    tokens: list[str]
    members: list[CandidateEntity] = field(default_factory=list)
    parent: int = -1
    rule: str = ""
    weight: int = 0
    votes: Counter[str] = field(default_factory=Counter)
    genders: set[str] = field(default_factory=set)
    titles: Counter[str] = field(default_factory=Counter)
    cores: list[list[str]] = field(default_factory=list)


def _core_of(cand: CandidateEntity, person_keys: set[str]) -> tuple[list[str], str]:
    name = names.split_qualifier(cand.name)[0] if cand.is_title else cand.name
    titles, core = names.split_title(name)
    if not titles or names.is_saint_like(titles[:1]):
        return [], name
    if normalize_type(cand.type) == PERSON or name_key(core) in person_keys:
        return titles, core
    return [], name


def _surface_titles(cand: CandidateEntity) -> tuple[set[str], Counter[str]]:
    genders: set[str] = set()
    titles: Counter[str] = Counter()
    for surface in {cand.name, *(o.surface for o in cand.occurrences)}:
        found, _ = names.split_title(surface)
        if found and not names.is_saint_like(found[:1]):
            genders |= names.gender_of(found)
            count = sum(o.count for o in cand.occurrences if o.surface == surface)
            for title in found:
                titles[title] += max(count, 1 if surface == cand.name else 0)
    return genders, titles


class Clusters:
    """The groups of one document, their union-find links and a first/last-word index."""

    def __init__(self, rules: ClusterRules | None = None) -> None:
        self.rules = rules or ClusterRules()
        self.groups: list[Group] = []
        self.by_key: dict[str, int] = {}
        # first and last word of every multi-word core name -> the groups that have it
        self.first: dict[str, set[int]] = {}
        self.last: dict[str, set[int]] = {}

    def find(self, i: int) -> int:
        """The root of the cluster group ``i`` belongs to."""
        while self.groups[i].parent >= 0:
            i = self.groups[i].parent
        return i

    def add(self, cand: CandidateEntity, person_keys: set[str]) -> None:
        """Put ``cand`` in the group of its key (``person_keys``: core names of persons)."""
        titles, core = _core_of(cand, person_keys)
        words = names.tokens(core)
        genders, carried = _surface_titles(cand)
        key = " ".join(words)
        own_gender = names.gender_of(titles)
        if len(words) == 1 and own_gender:
            key += "|" + ",".join(sorted(own_gender))
        idx = self.by_key.get(key)
        if idx is None:
            idx = len(self.groups)
            self.by_key[key] = idx
            self.groups.append(Group(key=key, tokens=words))
        group = self.groups[idx]
        group.members.append(cand)
        group.weight += max(cand.mentions, 1)
        # an honorific says "person" more reliably than the tagger's label does
        kind = PERSON if titles else normalize_type(cand.type)
        group.votes[kind] += max(cand.mentions, 1)
        group.genders |= genders
        group.titles.update(carried)
        # the name and every surface form it was seen under (a merged candidate's "John
        # Seward" keeps it a full name when it is clustered again under "Dr. Seward")
        forms = [core] + [
            _core_of(CandidateEntity(o.surface, cand.type), person_keys)[1]
            for o in cand.occurrences
            if names.title_reference(o.surface) is None
        ]
        for form in forms:
            tokens = names.tokens(form)
            if not tokens or tokens in group.cores:
                continue
            group.cores.append(tokens)
            if len(tokens) > 1 and names.looks_like_person_name(form):
                self.first.setdefault(tokens[0], set()).add(idx)
                self.last.setdefault(tokens[-1], set()).add(idx)

    def name_keys(self, root: int) -> set[str]:
        """The name keys of every name and surface form in the cluster of ``root``."""
        keys: set[str] = set()
        for i, group in enumerate(self.groups):
            if self.find(i) == root:
                for cand in group.members:
                    keys.add(name_key(cand.name))
                    keys.update(name_key(o.surface) for o in cand.occurrences)
        return keys

    def allows(self, rule: str, keys: set[str], root: int) -> bool:
        """Whether names with these keys may join the cluster of ``root`` by ``rule``."""
        if not self.rules.off and not self.rules.apart:
            return True
        return not self.rules.keeps_apart(rule, keys, self.name_keys(root))

    def merge(self, child: int, root: int, rule: str) -> bool:
        """Join root ``child`` to root ``root``, by ``rule``, unless the rules keep them
        apart; whether they were joined."""
        if (self.rules.off or self.rules.apart) and not self.allows(
            rule, self.name_keys(child), root
        ):
            return False
        a, b = self.groups[child], self.groups[root]
        a.parent, a.rule = root, rule
        b.weight += a.weight
        b.votes.update(a.votes)
        b.genders |= a.genders
        b.titles.update(a.titles)
        b.cores.extend(a.cores)
        return True

    def roots(self) -> list[int]:
        """The groups that are the root of their cluster."""
        return [i for i, g in enumerate(self.groups) if g.parent < 0]

    def type_of(self, i: int) -> str:
        """The cluster's type: the vote, corrected by the head-noun rule for persons."""
        group = self.groups[i]
        kind = _vote(group.votes)
        longest = max(group.cores, key=len, default=[])
        head = names.head_type(" ".join(longest))
        if head is not None and kind == PERSON:
            return head
        return kind

    def size(self, i: int) -> int:
        """The number of words of the cluster's longest name."""
        return max((len(core) for core in self.groups[i].cores), default=0)

    def personish(self, i: int) -> bool:
        """Whether a third of the cluster's votes say Person, or its names carry a gender."""
        group = self.groups[i]
        total = sum(group.votes.values()) or 1
        return group.votes[PERSON] * 3 >= total or bool(group.genders)

    def targets(self, i: int) -> list[int]:
        """Person clusters with a longer name of which cluster ``i`` is a part."""
        group = self.groups[i]
        size = self.size(i)
        found: set[int] = set()
        for short in group.cores:
            if len(short) != size or not short:
                continue
            near = self.first.get(short[0], set()) | self.last.get(short[-1], set())
            for g in near:
                j = self.find(g)
                if j == i or j in found or self.size(j) <= size:
                    continue
                if not any(names.is_name_part(short, long) for long in self.groups[j].cores):
                    continue
                if self.type_of(j) != PERSON:
                    continue
                if names.genders_conflict(group.genders, self.groups[j].genders):
                    continue
                found.add(j)
        return sorted(found, key=lambda j: (-self.groups[j].weight, self.groups[j].key))


def _vote(votes: Counter[str]) -> str:
    if not votes:
        return CONCEPT
    return max(votes, key=lambda t: (votes[t], -_type_rank(t)))


def _type_rank(kind: str) -> int:
    return TYPES.index(kind) if kind in TYPES else len(TYPES)
