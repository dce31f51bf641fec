#!/usr/bin/env python3
"""include_layers.py - the C sources keep the layers the README's "Layout" section allows.

Reads every #include "..." in common/, rules/, db/ and service/, and fails when
  - a folder includes a folder it may not (the table ALLOWED below, which is the
    README's table of layers: change both together),
  - an include names no file of the project (a quoted include is always ours),
  - the files' include graph has a circle (a.h -> b.h -> a.h, or through .c files),
  - a file does not open with a one-line comment saying what it is,
  - a storage backend's library header (sqlite3.h, libpq-fe.h) is included outside its folder
    (db/sqlite/, db/postgresql/),
    or a backend's own header outside that backend: the query files of db/ reach a backend
    only through the statement API of db_internal.h.
Run: python3 tests/repo/include_layers.py [SOURCE_ROOT]
"""
import os
import re
import sys

# Who may include whom. A folder may always include its own files.
ALLOWED = {
    'common': set(),
    'rules': {'common'},
    'db': {'common'},
    'service/core': {'common', 'db'},
    'service/game': {'service/core', 'common', 'db', 'rules'},
    'service/mail_out': {'service/game', 'service/core', 'common', 'db', 'rules'},
    'service/pipeline': {'service/mail_out', 'service/game', 'service/core', 'common', 'db', 'rules'},
    'service/mail_in': {'service/pipeline', 'service/mail_out', 'service/game', 'service/core',
                        'common', 'db', 'rules'},
    'service/http': {'service/core', 'common', 'db'},
    'service/live': {'service/http', 'service/game', 'service/core', 'common', 'db', 'rules'},
    'service/api': {'service/http', 'service/pipeline', 'service/mail_out', 'service/game',
                    'service/core', 'common', 'db', 'rules'},
    'service/pages': {'service/http', 'service/pipeline', 'service/mail_out', 'service/game',
                      'service/core', 'common', 'db', 'rules'},
    'service/daemon': {'service/api', 'service/pages', 'service/live', 'service/http', 'service/mail_in',
                       'service/pipeline', 'service/mail_out', 'service/game', 'service/core',
                       'common', 'db', 'rules'},
}
# Headers the build generates (from migrations/ and templates/), with the folder that owns them.
GENERATED = {'migrations.h': 'db', 'templates.h': 'service/pages'}
# Where an unqualified include is looked for after the including file's own folder: the
# libraries' include directories. Service files name their headers by folder ("core/app.h").
LIBRARY_DIRS = ['common', 'rules', 'db']

# The system headers only one folder may include: the storage backends' libraries.
BACKEND_HEADERS = {'sqlite3.h': 'db/sqlite', 'libpq-fe.h': 'db/postgresql'}
SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s+<([^>]+)>', re.M)

TOP_COMMENT = re.compile(r'^/\* [a-z_0-9]+\.[ch] - \S')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(rel):
    parts = rel.split('/')
    return '/'.join(parts[:2]) if parts[0] == 'service' else parts[0]


def sources(root):
    for top in ('common', 'rules', 'db', 'service'):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith(('.c', '.h')):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def resolve(root, rel, name):
    """The project file an include names, or None."""
    candidates = [os.path.join(os.path.dirname(rel), name)]
    if '/' in name:
        candidates.append(os.path.join('service', name))
    candidates += [os.path.join(d, name) for d in LIBRARY_DIRS]
    for c in candidates:
        if os.path.isfile(os.path.join(root, c)):
            return os.path.normpath(c)
    return None


def find_cycle(graph):
    """One circle in graph (a list of nodes, first == last), or None."""
    state = {}

    def visit(node, path):
        state[node] = 'open'
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 'open':
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path)
                if found:
                    return found
        path.pop()
        state[node] = 'done'
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def check(root):
    problems = []
    graph = {}
    files = list(sources(root))
    if not files:
        return ['no sources found under ' + root]
    for rel in files:
        with open(os.path.join(root, rel), encoding='utf-8') as f:
            text = f.read()
        first = text.split('\n', 1)[0]
        if not TOP_COMMENT.match(first) or not first.startswith('/* ' + os.path.basename(rel) + ' - '):
            problems.append(f'{rel}: does not open with "/* {os.path.basename(rel)} - what it is"')
        here = folder_of(rel)
        if here not in ALLOWED:
            problems.append(f'{rel}: folder {here} is not in the table of layers')
            continue
        for name in SYSTEM_INCLUDE.findall(text):
            owner = BACKEND_HEADERS.get(name)
            if owner and os.path.dirname(rel) != owner:
                problems.append(f'{rel}: includes <{name}>, which only {owner}/ may use')
        # The unit of the graph is the module: foo.c and foo.h are one node.
        node = os.path.splitext(rel)[0]
        graph.setdefault(node, set())
        for name in INCLUDE.findall(text):
            if name in GENERATED:
                target, there = None, GENERATED[name]
            else:
                target = resolve(root, rel, name)
                if target is None:
                    problems.append(f'{rel}: includes "{name}", which is no file of the project')
                    continue
                there = folder_of(target)
            backend = os.path.dirname(target) if target else ''
            if backend in BACKEND_HEADERS.values() and os.path.dirname(rel) != backend:
                problems.append(f'{rel}: includes "{name}" of the backend {backend}, which only it may use')
            if there != here and there not in ALLOWED[here]:
                problems.append(f'{rel}: includes "{name}" of {there}, which {here} may not use')
            if here.startswith('service/') and target and target.startswith('service/') and '/' not in name:
                problems.append(f'{rel}: includes "{name}" without its folder (write "{target[8:]}")')
            # A folder's private header (*_internal.h) is part of every module of the folder.
            if target and not target.endswith('_internal.h') and not rel.endswith('_internal.h'):
                other = os.path.splitext(target)[0]
                if other != node:
                    graph[node].add(other)
    cycle = find_cycle(graph)
    if cycle:
        problems.append('include circle: ' + ' -> '.join(cycle))
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
    problems = check(os.path.abspath(root))
    for p in problems:
        print(p)
    if problems:
        print(f'{len(problems)} problem(s): see the layers in README.md, section Layout')
        return 1
    print('the includes keep the layers')
    return 0


if __name__ == '__main__':
    sys.exit(main())
