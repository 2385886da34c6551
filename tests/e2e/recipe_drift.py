"""The commands a guide gives for a shipped recipe are the recipe's own:
the `$ ` lines of deploy/compose.yaml's header (which tests/e2e/compose.sh
runs as written) must be, block for block, the shell blocks of
docs/deploying.md's "Compose on one host" section.

  recipe_drift.py [COMPOSE_FILE DEPLOYING_MD]

Exit 1 naming the first command that differs.
"""

import re
import sys


def header_blocks(path):
    blocks, current, cont = [], [], False
    for line in open(path, encoding="utf-8"):
        if not line.startswith("#"):
            break
        text = line[1:].rstrip("\n")
        if text.startswith("   $ "):
            current.append(text[5:].strip())
            cont = text.endswith("\\")
        elif cont and text.startswith("       "):
            current[-1] += " " + text.strip()
            cont = text.endswith("\\")
        else:
            if current:
                blocks.append(current)
            current, cont = [], False
    if current:
        blocks.append(current)
    return [[normal(c) for c in b] for b in blocks]


def guide_blocks(path, heading="## Compose on one host"):
    text = open(path, encoding="utf-8").read()
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    section = text[start:end if end > 0 else len(text)]
    blocks = []
    for body in re.findall(r"```sh\n(.*?)```", section, re.S):
        commands, current = [], ""
        for line in body.splitlines():
            current += (" " if current else "") + line.strip()
            if not line.rstrip().endswith("\\"):
                commands.append(normal(current))
                current = ""
        blocks.append(commands)
    return blocks


def normal(command):
    command = re.sub(r"\s*#.*$", "", command) if " #" in command else command
    return re.sub(r"\s+", " ", command.replace("\\ ", " ").rstrip("\\")).strip()


def main():
    compose, guide = (sys.argv[1:3] if len(sys.argv) > 2
                      else ("deploy/compose.yaml", "docs/deploying.md"))
    want, have = header_blocks(compose), guide_blocks(guide)
    if want != have:
        for i, (w, h) in enumerate(zip(want, have)):
            for a, b in zip(w, h):
                if a != b:
                    print(f"recipe drift: {guide}, block {i + 1}: `{b}`\n"
                          f"  but {compose}'s header says: `{a}`", file=sys.stderr)
                    sys.exit(1)
            if len(w) != len(h):
                print(f"recipe drift: {guide}, block {i + 1} has {len(h)} commands, "
                      f"{compose}'s header {len(w)}", file=sys.stderr)
                sys.exit(1)
        print(f"recipe drift: {guide} has {len(have)} command blocks for the compose "
              f"recipe, its header {len(want)}", file=sys.stderr)
        sys.exit(1)
    print(f"recipe drift: the {sum(map(len, want))} commands of {compose}'s header "
          f"are the guide's, block for block")


if __name__ == "__main__":
    main()
