"""In-document entity clustering: the variant names of one entity become one candidate.

Rules, applied in this order (each a general rule of English names, see
:mod:`loregraph.text.names`):

1. **Same key** — names with one :func:`~loregraph.models.name_key` after the honorific
   is stripped are one entity: ``Dr. Seward`` ~ ``Seward``, ``Count Dracula`` ~
   ``Dracula``, ``JONATHAN HARKER`` ~ ``Jonathan Harker``. Honorifics are stripped from
   names typed Person, and from other names only when the rest is a person's name (spaCy
   often types ``Madam Mina`` as an organisation); ``Saint``/``St.`` is never stripped
   (``St. Petersburg``). A one-word name with a gendered honorific keeps the gender in its
   key: ``Mr. Harker`` and ``Mrs. Harker`` are different people.
2. **Part of a name, unique** — a person's name that is the leading or trailing part of
   exactly one longer person name merges into it (``Seward`` → ``John Seward``,
   ``Van Helsing`` → ``Abraham Van Helsing``, ``Mr. Morris`` → ``Quincey Morris``).
   Candidates whose honorifics imply a conflicting gender are not counted (``Mrs.
   Harker`` is not ``Jonathan Harker`` once he is known as ``Mr. Jonathan Harker``).
   Repeated until nothing changes.
3. **Part of a name, dominant** — when several longer names fit, the short name merges
   into the most-mentioned one only if it has at least :data:`DOMINANCE` times the
   mentions of the runner-up; otherwise it stays a separate entity (``Harker`` between a
   ``Jonathan Harker`` and a ``Mina Harker`` of similar weight stays ``Harker``).
4. **Gendered variant** — ``Lord Godalming`` joins ``Godalming`` when it is the only
   gendered variant of that name.
5. **Title references** — a title used alone (``the Count``, ``the Professor``) joins the
   entity that carries that title in its names (``Count Dracula``) when it is the only one,
   or dominant as in rule 3. An unresolved title reference is dropped: a bare title is not
   a name.

The canonical name is the most informative common form: among the variants mentioned at
least :data:`CANONICAL_MIN_SHARE` times as often as the most frequent one (and at least
twice), the one with the most name words (not counting honorifics), then the most
mentioned; a document-title candidate's name always wins. The type is the mention-weighted
majority of the normalised types, corrected by the head-noun rule (``Castle Dracula`` is
a Location whatever the tagger said).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from loregraph.ingest.types import CandidateEntity, Occurrence
from loregraph.models import name_key
from loregraph.text import names
from loregraph.text.entity_types import CONCEPT, PERSON, TYPES, normalize_type

DOMINANCE = 3.0
"""How many times the mentions of the runner-up a name must have to take an ambiguous part."""

CANONICAL_MIN_SHARE = 0.05
"""A variant must be mentioned this share as often as the most frequent one to be canonical."""

Record = tuple[str, str, str]


@dataclass(slots=True)
class _Group:
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


class _Clusters:
    def __init__(self) -> None:
        self.groups: list[_Group] = []
        self.by_key: dict[str, int] = {}
        # first and last word of every multi-word core name -> the groups that have it
        self.first: dict[str, set[int]] = {}
        self.last: dict[str, set[int]] = {}

    def find(self, i: int) -> int:
        while self.groups[i].parent >= 0:
            i = self.groups[i].parent
        return i

    def add(self, cand: CandidateEntity, person_keys: set[str]) -> None:
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
            self.groups.append(_Group(key=key, tokens=words))
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

    def merge(self, child: int, root: int, rule: str) -> None:
        a, b = self.groups[child], self.groups[root]
        a.parent, a.rule = root, rule
        b.weight += a.weight
        b.votes.update(a.votes)
        b.genders |= a.genders
        b.titles.update(a.titles)
        b.cores.extend(a.cores)

    def roots(self) -> list[int]:
        return [i for i, g in enumerate(self.groups) if g.parent < 0]

    def type_of(self, i: int) -> str:
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


def _part_of_name_pass(clusters: _Clusters, dominant: bool) -> bool:
    changed = False
    order = sorted(
        clusters.roots(),
        key=lambda i: (clusters.size(i), -clusters.groups[i].weight, clusters.groups[i].key),
    )
    for i in order:
        if clusters.groups[i].parent >= 0 or not clusters.personish(i):
            continue
        found = clusters.targets(i)
        if len(found) == 1 and not dominant:
            clusters.merge(i, found[0], "part-of-name")
            changed = True
        elif len(found) > 1 and dominant:
            first, second = clusters.groups[found[0]], clusters.groups[found[1]]
            if first.weight >= DOMINANCE * second.weight:
                clusters.merge(i, found[0], "part-of-name-dominant")
                changed = True
    return changed


def _gendered_variants(clusters: _Clusters) -> None:
    plain: dict[str, int] = {}
    gendered: dict[str, list[int]] = {}
    for i, group in enumerate(clusters.groups):
        base, _, gender = group.key.partition("|")
        if gender:
            gendered.setdefault(base, []).append(i)
        else:
            plain[base] = i
    for base, variants in gendered.items():
        if base not in plain or len(variants) != 1:
            continue
        i, root = clusters.find(variants[0]), clusters.find(plain[base])
        if i != variants[0] or i == root:
            continue
        if not names.genders_conflict(clusters.groups[i].genders, clusters.groups[root].genders):
            clusters.merge(i, root, "honorific")


def _title_reference(clusters: _Clusters, title: str) -> int | None:
    gender = names.gender_of([title])
    carriers = [
        (clusters.groups[j].titles[title], j)
        for j in clusters.roots()
        if clusters.groups[j].titles[title] > 0
        and not names.genders_conflict(gender, clusters.groups[j].genders)
    ]
    carriers.sort(key=lambda x: (-x[0], clusters.groups[x[1]].key))
    if len(carriers) == 1:
        return carriers[0][1]
    if len(carriers) > 1 and carriers[0][0] >= DOMINANCE * carriers[1][0]:
        return carriers[0][1]
    return None


def _canonical(members: list[CandidateEntity]) -> str:
    for cand in members:
        if cand.is_title:
            return cand.name
    weights: Counter[str] = Counter()
    for cand in members:
        weights[cand.name] += max(cand.mentions, 1)
    variants = list(weights)
    if any(not _all_caps(v) for v in variants):
        variants = [v for v in variants if not _all_caps(v)]
    top = max(weights[v] for v in variants)
    floor = max(CANONICAL_MIN_SHARE * top, min(2, top))
    eligible = [v for v in variants if weights[v] >= floor]

    def rank(v: str) -> tuple[int, int, int, str]:
        core_words = len(names.tokens(names.split_title(v)[1]))
        return (-core_words, -weights[v], len(v), v)

    return min(eligible, key=rank)


def _all_caps(name: str) -> bool:
    letters = [c for c in name if c.isalpha()]
    return len(letters) > 1 and all(c.isupper() for c in letters)


def _combine(members: list[CandidateEntity], name: str, kind: str) -> CandidateEntity:
    occurrences: dict[tuple[int, str], int] = {}
    for cand in members:
        for occ in cand.occurrences:
            key = (occ.chunk_seq, occ.surface)
            occurrences[key] = occurrences.get(key, 0) + occ.count

    def first_seen(c: CandidateEntity) -> tuple[int, int, int]:
        seqs = [o.chunk_seq for o in c.occurrences]
        return (0 if c.description else 1, min(seqs) if seqs else 1 << 30, -c.mentions)

    described = min(members, key=first_seen)
    return CandidateEntity(
        name=name,
        type=kind,
        description=described.description,
        salience=max(c.salience for c in members),
        mentions=sum(c.mentions for c in members),
        occurrences=[Occurrence(s, f, n) for (s, f), n in sorted(occurrences.items())],
        confidence=max(c.confidence for c in members),
        is_title=any(c.is_title for c in members),
    )


def cluster_candidates(
    cands: list[CandidateEntity],
) -> tuple[list[CandidateEntity], list[Record]]:
    """Merge the variant names of each entity of one document (rules in the module doc).

    Returns the merged candidates (most mentioned first) and ``(surface, canonical, rule)``
    records for every input name and every surface form (of the occurrences) that now
    belongs to a candidate of another name. Mentions add up, occurrences (with their
    surfaces, which become aliases) are kept, salience and confidence are the maximum.
    Running it again on its own output changes no candidate and gives the same
    surface → canonical records (rules of surfaces merged earlier are reconstructed from
    the names: ``honorific``, ``title-reference``, ``part-of-name``, ``in-document``).
    """
    refs: list[tuple[CandidateEntity, str]] = []
    entities: list[CandidateEntity] = []
    for cand in cands:
        title = names.title_reference(cand.name)
        if title is not None and not cand.is_title:
            refs.append((cand, title))
        else:
            entities.append(cand)

    person_keys = {
        name_key(names.split_title(c.name)[1]) for c in entities if normalize_type(c.type) == PERSON
    }
    clusters = _Clusters()
    for cand in entities:
        clusters.add(cand, person_keys)
    while True:
        while _part_of_name_pass(clusters, dominant=False):
            pass
        if not _part_of_name_pass(clusters, dominant=True):
            break
    _gendered_variants(clusters)

    members: dict[int, list[tuple[int, CandidateEntity]]] = {}
    for i, group in enumerate(clusters.groups):
        members.setdefault(clusters.find(i), []).extend((i, c) for c in group.members)
    for cand, title in refs:
        target = _title_reference(clusters, title)
        if target is not None:
            members[target].append((-1, cand))

    out: list[CandidateEntity] = []
    records: list[Record] = []
    for root in sorted(members, key=lambda r: clusters.groups[r].key):
        pairs = members[root]
        canonical = _canonical([c for g, c in pairs if g >= 0])
        out.append(_combine([c for _, c in pairs], canonical, clusters.type_of(root)))
        home = next(g for g, c in pairs if c.name == canonical)
        seen = {canonical}
        for g, cand in pairs:
            if cand.name not in seen:
                seen.add(cand.name)
                records.append((cand.name, canonical, _rule(clusters, g, home, cand.name)))
        for occ in out[-1].occurrences:
            if occ.surface not in seen:
                seen.add(occ.surface)
                records.append((occ.surface, canonical, _surface_rule(occ.surface, canonical)))
    out.sort(key=lambda c: (-c.mentions, c.name))
    return out, records


def _surface_rule(surface: str, canonical: str) -> str:
    """The rule for a surface form that was already merged when it came in."""
    if names.title_reference(surface) is not None:
        return "title-reference"
    titles, core = names.split_title(surface)
    if name_key(core) == name_key(names.split_title(canonical)[1]):
        return "honorific" if titles else "exact"
    short, long = names.tokens(core), names.tokens(names.split_title(canonical)[1])
    if names.is_name_part(short, long) or names.is_name_part(long, short):
        return "part-of-name"
    return "in-document"


def _rule(clusters: _Clusters, group: int, home: int, name: str) -> str:
    """How ``name`` (in ``group``) came to share a cluster with the canonical name's group."""
    if group < 0:
        return "title-reference"
    if (
        group == home
        or clusters.groups[group].key.partition("|")[0]
        == (clusters.groups[home].key.partition("|")[0])
    ):
        return "honorific" if names.split_title(name)[0] else "exact"
    if clusters.groups[group].parent >= 0:
        return clusters.groups[group].rule
    return clusters.groups[home].rule or "exact"
