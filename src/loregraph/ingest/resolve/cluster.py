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

from loregraph.ingest.resolve.cluster_groups import Clusters
from loregraph.ingest.types import CandidateEntity, ClusterRules, Occurrence
from loregraph.models import name_key
from loregraph.text import names
from loregraph.text.entity_types import PERSON, normalize_type

DOMINANCE = 3.0
"""How many times the mentions of the runner-up a name must have to take an ambiguous part."""

CANONICAL_MIN_SHARE = 0.05
"""A variant must be mentioned this share as often as the most frequent one to be canonical."""

Record = tuple[str, str, str]


def _part_of_name_pass(clusters: Clusters, dominant: bool) -> bool:
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
            changed = clusters.merge(i, found[0], "part-of-name") or changed
        elif len(found) > 1 and dominant:
            first, second = clusters.groups[found[0]], clusters.groups[found[1]]
            if first.weight >= DOMINANCE * second.weight:
                changed = clusters.merge(i, found[0], "part-of-name-dominant") or changed
    return changed


def _gendered_variants(clusters: Clusters) -> None:
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


def _title_reference(clusters: Clusters, title: str) -> int | None:
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
    cands: list[CandidateEntity], rules: ClusterRules | None = None
) -> tuple[list[CandidateEntity], list[Record]]:
    """Merge the variant names of each entity of one document (rules in the module doc).

    Returns the merged candidates (most mentioned first) and ``(surface, canonical, rule)``
    records for every input name and every surface form (of the occurrences) that now
    belongs to a candidate of another name. Mentions add up, occurrences (with their
    surfaces, which become aliases) are kept, salience and confidence are the maximum.
    Running it again on its own output changes no candidate and gives the same
    surface → canonical records (rules of surfaces merged earlier are reconstructed from
    the names: ``honorific``, ``title-reference``, ``part-of-name``, ``in-document``).
    ``rules`` switch joins off or keep names apart (:class:`ClusterRules`).
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
    clusters = Clusters(rules)
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
        keys = {name_key(cand.name), *(name_key(o.surface) for o in cand.occurrences)}
        if target is not None and clusters.allows("title-reference", keys, target):
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
    target = names.split_title(names.split_qualifier(canonical)[0])[1]  # a title's qualifier
    if name_key(core) == name_key(target):
        return "honorific" if titles else "exact"
    short, long = names.tokens(core), names.tokens(target)
    if names.is_name_part(short, long) or names.is_name_part(long, short):
        return "part-of-name"
    return "in-document"


def _rule(clusters: Clusters, group: int, home: int, name: str) -> str:
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
