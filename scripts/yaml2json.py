#!/usr/bin/env python3
"""yaml2json.py - the API contract (docs/openapi.yaml) as compact JSON, for the daemon to embed.

usage: yaml2json.py INPUT.yaml OUTPUT.json
The build runs it with Debian's python3-yaml; the keys keep the document's order.
"""

import json
import os
import sys

import yaml


def main(argv):
    if len(argv) != 3:
        sys.stderr.write('usage: yaml2json.py INPUT.yaml OUTPUT.json\n')
        return 2
    with open(argv[1], encoding='utf-8') as f:
        doc = yaml.safe_load(f)
    if not isinstance(doc, dict) or not str(doc.get('openapi', '')).startswith('3.1.'):
        sys.stderr.write('%s: not an OpenAPI 3.1 document\n' % argv[1])
        return 1
    text = json.dumps(doc, ensure_ascii=True, separators=(',', ':'), allow_nan=False) + '\n'
    # Served as a static file: "{{" would read as a template tag to scripts/embed.py.
    if '{{' in text:
        sys.stderr.write('%s: "{{" in the document\n' % argv[1])
        return 1
    tmp = argv[2] + '.tmp'
    with open(tmp, 'w', encoding='ascii') as f:
        f.write(text)
    os.replace(tmp, argv[2])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
