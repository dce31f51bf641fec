#!/usr/bin/env python3
"""rules_docs.py - each game's rules page and its docs/rules/<game>.md say the same thing.

usage: python3 tests/repo/rules_docs.py [SOURCE-ROOT]

For every game page templates/rules-<game>.html (a rules-*.html that no other template
includes), docs/rules/<game>.md must have:
  - the page's numbered <h2> sections as "## N. Title", the same titles in the same order
    (the page's "Contents" heading aside, house-rule badges dropped), then a last section
    "## Scenarios";
  - in each section, the page's <h3> titles as "### Title", in the same order (the doc may add
    headings of its own between them);
  - in the "House rulings" section, the page's house rulings as a numbered list: as many, in
    the same order, each with the same text once both are normalised (tags, badges, markdown
    emphasis, backticks and links dropped, entities decoded, quotes, dashes and whitespace
    made plain). Includes such as {{>rules-ply-limit.html}} are expanded; a page's {{value}}
    stands for whatever the doc writes there, and {{#x}}A{{/x}}{{^x}}B{{/x}} for A or B.
Every scenario id listed in a doc's Scenarios section must be mentioned in some C file under
tests/: written as it is ("N12", "CW2-1") or in a test name ("test_n12_release",
"test_cw2_1_..."). The ids of KNOWN_UNTESTED are reported without failing.

A game page without its doc fails. Standard library only.
"""
import html
import html.parser
import os
import re
import sys

# Scenario ids of the rules that no C test names yet: reported, not failed. Keep it short; an id
# that a test names must leave this list (the check says so).
KNOWN_UNTESTED = {}

INCLUDE = re.compile(r'\{\{>\s*([\w.-]+)\s*\}\}')
MUSTACHE = re.compile(r'\{\{[#^/]?\s*[\w.-]+\s*\}\}')
# A scenario's id opens a heading, a list item, a table row or a bold run: "**N1 - ...", "### CW2-1".
SCENARIO_LINE = re.compile(r'^(?:(?:#{1,6}\s+|[-*+]\s+|\|\s*)(?:\*\*|__)?|\*\*|__)([A-Z]{1,3}\d+(?:-\d+)?[a-z]?)\b')
HOUSE_MARK = re.compile(r'^\s*(?:\[house(?: rule)?\]|\(house rule\)|house rule\b)\s*[:.-]?\s*', re.I)
HOUSE_TAIL = re.compile(r'\s*(?:\[house(?: rule)?\]|\(house rule\)|house rule)\s*$', re.I)

PLAIN = str.maketrans({
    '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u2032': "'",
    '\u201c': '"', '\u201d': '"', '\u201e': '"', '\u2033': '"',
    '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-',
    '\u2212': '-', '\u00a0': ' ', '\u202f': ' ', '\u2009': ' ', '\u2026': '...',
})


def plain(text):
    """Entities decoded, quotes and dashes made plain, markdown emphasis, backticks and links
    dropped, whitespace collapsed. Used on both sides, so it may be generous."""
    text = html.unescape(text).translate(PLAIN)
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)        # [text](link)
    text = text.replace('`', '')
    text = re.sub(r'(?<![\w*])(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1(?![\w*])', r'\2', text)
    return re.sub(r'\s+', ' ', text).strip()


def title(text):
    """A heading's text: plain, with a house-rule marker at either end dropped."""
    text = plain(text)
    text = HOUSE_TAIL.sub('', text)
    return HOUSE_MARK.sub('', text).strip()


def ruling(text):
    return HOUSE_MARK.sub('', plain(text)).strip()


def ruling_pattern(text):
    """A page ruling, its {{...}} left in, as a regular expression over plain text, and the text
    to show."""
    tags = MUSTACHE.findall(text)
    marked = plain(MUSTACHE.sub(lambda m: chr(0xE000 + tags.index(m.group(0))), text))
    tokens = []
    for piece in re.split('([\uE000-\uF8FF])', marked):
        if len(piece) == 1 and '\uE000' <= piece <= '\uF8FF':
            name = re.sub(r'[{}\s]', '', tags[ord(piece) - 0xE000])
            tokens.append((name[0], name[1:]) if name[0] in '#^/' else ('var', name))
        elif piece:
            tokens.append(('text', piece))

    def close(i):
        depth = 0
        for j in range(i, len(tokens)):
            depth += tokens[j][0] in '#^'
            depth -= tokens[j][0] == '/'
            if depth == 0:
                return j
        raise SystemExit('unbalanced {{#...}} in a house ruling: ' + text)

    def build(tokens_from, tokens_to):
        out, i = '', tokens_from
        while i < tokens_to:
            kind, value = tokens[i]
            if kind == 'text':
                # A section that renders nothing leaves its two neighbours' spaces as one.
                body = re.escape(value.strip())
                out += (' ?' if value[0] == ' ' else '') + body + (' ?' if value[-1] == ' ' and body else '')
                i += 1
            elif kind == 'var':
                out += '(.+?)'
                i += 1
            else:
                j = close(i)
                other = '^' if kind == '#' else '#'
                if j + 1 < tokens_to and tokens[j + 1] == (other, value):
                    k = close(j + 1)
                    out += '(?:' + build(i + 1, j) + '|' + build(j + 2, k) + ')'
                    i = k + 1
                else:
                    out += '(?:' + build(i + 1, j) + ')?'
                    i = j + 1
        return out

    regex = build(0, len(tokens))
    shown = re.sub(r'\s+', ' ', text).strip()
    return re.compile(regex + r'\Z', re.S), shown


class Page(html.parser.HTMLParser):
    """The <h2>s, each with its <h3>s, and the items of the house rulings' list."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = []      # [title, [h3 titles]]
        self.rulings = []
        self.heading = None     # the text of the heading being read
        self.skip = 0           # depth inside a house-rule badge
        self.in_rulings = False
        self.list_depth = 0     # depth of lists inside the house rulings' section
        self.item = None

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get('class') or ''
        if self.skip or (tag == 'span' and 'house' in cls.split()):
            self.skip += tag not in ('br', 'img', 'input', 'wbr', 'hr')
            return
        if tag in ('h2', 'h3'):
            self.heading = ''
        elif self.in_rulings and tag in ('ol', 'ul'):
            self.list_depth += 1
        elif self.in_rulings and tag == 'li' and self.list_depth == 1:
            self.item = ''

    def handle_endtag(self, tag):
        if self.skip:
            self.skip -= 1
            return
        if tag == 'h2' and self.heading is not None:
            self.sections.append([title(self.heading), []])
            self.in_rulings = bool(re.fullmatch(r'\d+\. House rulings', self.sections[-1][0]))
            self.heading = None
        elif tag == 'h3' and self.heading is not None:
            if self.sections:
                self.sections[-1][1].append(title(self.heading))
            self.heading = None
        elif self.in_rulings and tag in ('ol', 'ul'):
            self.list_depth -= 1
        elif self.in_rulings and tag == 'li' and self.list_depth == 1 and self.item is not None:
            self.rulings.append(self.item)
            self.item = None
        elif tag == 'section':
            self.in_rulings = False

    def handle_data(self, data):
        if self.skip:
            return
        if self.heading is not None:
            self.heading += data
        if self.item is not None:
            self.item += data


def expand(templates, text, seen=()):
    def one(m):
        name = m.group(1)
        if name in seen:
            raise SystemExit(f'templates/{name} includes itself')
        with open(os.path.join(templates, name), encoding='utf-8') as f:
            return expand(templates, f.read(), seen + (name,))
    return INCLUDE.sub(one, text)


def read_page(templates, name):
    with open(os.path.join(templates, name), encoding='utf-8') as f:
        text = expand(templates, f.read(), (name,))
    page = Page()
    page.feed(text)
    page.close()
    page.sections = [s for s in page.sections if s[0] != 'Contents']
    return page


def read_doc(path):
    """The doc's "## " sections, each with its "### " titles and its lines (code blocks out)."""
    sections, fenced = [], False
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.lstrip().startswith(('```', '~~~')):
                fenced = not fenced
            if fenced or line.lstrip().startswith(('```', '~~~')):
                if sections:
                    sections[-1]['lines'].append('')
                continue
            m = re.match(r'(#{2,3})\s+(.*?)\s*#*\s*$', line)
            if m and len(m.group(1)) == 2:
                sections.append({'title': title(m.group(2)), 'h3': [], 'lines': []})
            elif sections:
                if m:
                    sections[-1]['h3'].append(title(m.group(2)))
                sections[-1]['lines'].append(line)
    return sections


def numbered_items(lines):
    """The items of the numbered list in lines: (number, text), continuation lines joined."""
    items, blank = [], False
    for line in lines:
        m = re.match(r'\s{0,3}(\d+)[.)]\s+(.*)', line)
        if line.startswith('#'):
            break
        if m:
            items.append([int(m.group(1)), m.group(2)])
        elif not line.strip():
            blank = True
            continue
        elif items and (not blank or line.startswith(('  ', '\t'))):
            items[-1][1] += ' ' + line.strip()
        elif items:
            break
        blank = False
    return items


def test_sources(root):
    texts = []
    for top, dirs, files in os.walk(os.path.join(root, 'tests')):
        dirs[:] = [d for d in dirs if d != 'node_modules' and not d.startswith('.')]
        for name in files:
            if name.endswith('.c'):
                with open(os.path.join(top, name), encoding='utf-8', errors='replace') as f:
                    texts.append(f.read())
    return '\n'.join(texts)


def mentioned(scenario, tests):
    exact = r'(?<![A-Za-z0-9])' + re.escape(scenario) + r'(?![A-Za-z0-9])'
    name = r'_' + re.escape(scenario.lower().replace('-', '_')) + r'(?![a-z0-9])'
    return re.search(exact, tests) is not None or re.search(name, tests) is not None


def check_game(root, game, page_name, tests, problems, notes):
    doc_path = os.path.join(root, 'docs', 'rules', game + '.md')
    doc_name = f'docs/rules/{game}.md'
    if not os.path.exists(doc_path):
        problems.append(f'{game}: templates/{page_name} has no {doc_name}')
        return
    page = read_page(os.path.join(root, 'templates'), page_name)
    doc = read_doc(doc_path)
    where = f'{game} ({doc_name} against templates/{page_name})'

    def fail(what, page_text, doc_text):
        problems.append(f'{where}: {what}\n    page: {page_text}\n    doc:  {doc_text}')

    if not doc or doc[-1]['title'] != 'Scenarios':
        fail('the last section must be "## Scenarios"', '(none)',
             doc[-1]['title'] if doc else '(no "## " section)')
    numbered = [s for s in doc if s['title'] != 'Scenarios']
    for i in range(max(len(page.sections), len(numbered))):
        p = page.sections[i][0] if i < len(page.sections) else '(no such section)'
        d = numbered[i]['title'] if i < len(numbered) else '(no such section)'
        if p != d:
            fail(f'section {i + 1} differs', p, d)
            continue
        wanted, have = page.sections[i][1], numbered[i]['h3']
        it = iter(have)
        missing = [h for h in wanted if not any(h == x for x in it)]
        if missing:
            fail(f'section "{p}": the page\'s subsections, in order, are not all in the doc'
                 f' (first missing: "{missing[0]}")', ' | '.join(wanted), ' | '.join(have) or '(none)')

    rulings_doc = [s for s in numbered if re.fullmatch(r'\d+\. House rulings', s['title'])]
    if not rulings_doc:
        fail('no "House rulings" section', str(len(page.rulings)) + ' rulings', '(none)')
    else:
        items = numbered_items(rulings_doc[0]['lines'])
        numbers = [n for n, _ in items]
        if numbers != list(range(1, len(items) + 1)):
            fail('the house rulings must be numbered 1, 2, 3... as on the page',
                 f'1-{len(page.rulings)}', ', '.join(map(str, numbers)))
        if len(items) != len(page.rulings):
            fail('a different number of house rulings', str(len(page.rulings)), str(len(items)))
        for i, (p, (_, d)) in enumerate(zip(page.rulings, items)):
            pattern, shown = ruling_pattern(HOUSE_MARK.sub('', p.strip()))
            if not pattern.match(ruling(d)):
                fail(f'house ruling {i + 1} differs', ruling(shown), ruling(d))

    scenario_lines = doc[-1]['lines'] if doc and doc[-1]['title'] == 'Scenarios' else []
    ids = []
    for line in scenario_lines:
        m = SCENARIO_LINE.match(line.strip())
        if m and m.group(1) not in ids:
            ids.append(m.group(1))
    if doc and doc[-1]['title'] == 'Scenarios' and not ids:
        fail('the Scenarios section lists no scenario id (such as "**N1 " or "### CW2-1" opening a line)',
             '-', '(none)')
    known = KNOWN_UNTESTED.get(game, set())
    untested = [s for s in ids if not mentioned(s, tests)]
    waived = [s for s in untested if s in known]
    notes.append(f'{game}: {len(ids)} scenarios, {len(ids) - len(untested)} named by a C test under tests/'
                 + (f'; not named by any: {", ".join(untested)}' if untested else '')
                 + (f' ({", ".join(waived)} known, listed in KNOWN_UNTESTED)' if waived else ''))
    for s in untested:
        if s not in known:
            problems.append(f'{game}: scenario {s} of {doc_name} is named by no C test under tests/'
                            ' (name it in the test that tries it, e.g. test_' +
                            s.lower().replace('-', '_') + '_...)')
    for s in sorted(known):
        if s in ids and s not in untested:
            problems.append(f'{game}: scenario {s} is now named by a C test: take it out of'
                            ' KNOWN_UNTESTED in tests/repo/rules_docs.py')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..')
    templates = os.path.join(root, 'templates')
    pages = sorted(n for n in os.listdir(templates) if re.fullmatch(r'rules-[\w-]+\.html', n))
    included = set()
    for n in pages:
        with open(os.path.join(templates, n), encoding='utf-8') as f:
            included.update(INCLUDE.findall(f.read()))
    games = [n for n in pages if n not in included]
    if not games:
        print('no game pages templates/rules-<game>.html found under', templates)
        return 1
    tests = test_sources(root)
    problems, notes = [], []
    for page_name in games:
        check_game(root, page_name[len('rules-'):-len('.html')], page_name, tests, problems, notes)
    for line in notes:
        print(line)
    for line in problems:
        print('FAIL', line)
    print(f'{len(games)} games, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
