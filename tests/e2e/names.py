"""The names the examples use against the names the shipped files define.

    python3 tests/e2e/names.py [ROOT]

The shipped files define the names: every object of deploy/kubernetes/*.yaml
(kind and metadata.name, and each Deployment's containers), the services of
deploy/compose.yaml, and the compose project of its header's first-start
command. The examples that name them are checked in deploy/github-actions.yml,
deploy/compose.yaml (its header), docs/deploying.md, docs/operating.md and
README.md:

  - after `kubectl`, every KIND/NAME (deployment, service, secret,
    poddisruptionbudget and their short forms) names an object of that kind,
    and `kubectl set image deployment/D C=…` a container C of D;
  - after `docker compose` or `docker-compose`, `-p`/`--project-name` is the
    header's project, and the service a subcommand names (`up … S`,
    `exec [-T] S`, `logs S`, `restart S`, …) is a service of the file;
  - `--reload-container NAME` is a container compose makes for a service
    (PROJECT_SERVICE_N with docker-compose 1, PROJECT-SERVICE-N with
    Compose v2).

Prints each disagreement with file and line, and exits 1 if there is any.
"""

import glob
import os
import re
import shlex
import sys

import yaml

KINDS = {
    "deployment": "Deployment", "deployments": "Deployment", "deploy": "Deployment",
    "service": "Service", "services": "Service", "svc": "Service",
    "secret": "Secret", "secrets": "Secret",
    "poddisruptionbudget": "PodDisruptionBudget", "pdb": "PodDisruptionBudget",
}
SERVICE_SUBCOMMANDS = {"up", "exec", "logs", "restart", "stop", "start", "rm", "kill", "run", "pull", "build", "create", "pause", "unpause", "top"}
# Options of compose subcommands that take a value (the next word).
VALUED = {"-e", "--env", "-u", "--user", "-w", "--workdir", "--index", "-t", "--timeout", "--scale", "--tail"}
DOCUMENTS = ["deploy/github-actions.yml", "deploy/compose.yaml", "docs/deploying.md", "docs/operating.md", "README.md"]


def shipped(root):
    objects, containers = set(), {}
    for path in sorted(glob.glob(os.path.join(root, "deploy/kubernetes/*.yaml"))):
        with open(path) as f:
            for doc in yaml.safe_load_all(f):
                if not isinstance(doc, dict) or "kind" not in doc:
                    continue
                name = doc.get("metadata", {}).get("name")
                objects.add((doc["kind"], name))
                if doc["kind"] == "Deployment":
                    pod = doc["spec"]["template"]["spec"]
                    containers[name] = {c["name"] for c in pod.get("containers", [])}
    with open(os.path.join(root, "deploy/compose.yaml")) as f:
        compose_text = f.read()
    services = set(yaml.safe_load(compose_text)["services"])
    first = re.search(r"^#\s+\$ docker-compose -p ([\w-]+) -f deploy/compose\.yaml up -d\s*$", compose_text, re.M)
    if not first:
        raise SystemExit("names: deploy/compose.yaml's header has no `docker-compose -p PROJECT -f deploy/compose.yaml up -d`")
    return objects, containers, services, first.group(1)


def commands(line, program):
    """The words of each command on the line that starts with `program`,
    up to the end of that command (a pipe, `&&`, `;`, a backtick or the end)."""
    for m in re.finditer(re.escape(program), line):
        rest = line[m.end():]
        rest = re.split(r"`|&&|\|\||;|\|(?!\|)", rest)[0]
        try:
            words = shlex.split(rest.replace("\\", " "), comments=False)
        except ValueError:
            words = rest.split()
        yield words


def check(root, objects, containers, services, project):
    problems = []
    for rel in DOCUMENTS:
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            lines = f.read().splitlines()
        for number, line in enumerate(lines, 1):
            where = f"{rel}:{number}"
            for program in ("docker-compose", "docker compose"):
                if program not in line:
                    continue
                for words in commands(line, program):
                    i = 0
                    while i < len(words) and words[i].startswith("-"):
                        option = words[i]
                        if option in ("-p", "--project-name") and i + 1 < len(words):
                            if words[i + 1] != project and not words[i + 1].startswith("$"):
                                problems.append(f"{where}: compose project {words[i + 1]}, the header's is {project}")
                        elif option.startswith("--project-name="):
                            value = option.split("=", 1)[1]
                            if value != project:
                                problems.append(f"{where}: compose project {value}, the header's is {project}")
                        i += 1 if "=" in option or option in ("--verbose", "--no-ansi") else 2
                    if i >= len(words) or words[i] not in SERVICE_SUBCOMMANDS:
                        continue
                    i += 1
                    while i < len(words) and words[i].startswith("-"):
                        i += 2 if words[i] in VALUED else 1
                    if i < len(words) and re.fullmatch(r"[a-z][\w-]*", words[i]) and words[i] not in services:
                        problems.append(f"{where}: compose service {words[i]}: deploy/compose.yaml has "
                                        f"{', '.join(sorted(services))}")
            for name in re.findall(r"--reload-container[ =]([\w.-]+)", line):
                allowed = {f"{project}_{s}_1" for s in services} | {f"{project}-{s}-1" for s in services}
                if name not in allowed and not name.isupper():
                    problems.append(f"{where}: --reload-container {name} is no container compose makes for "
                                    f"the project {project} (e.g. {project}_front_1)")
        problems += kubectl(rel, "\n".join(lines), objects, containers)
    return sorted(set(problems), key=problems.index)


def kubectl(rel, text, objects, containers):
    """KIND/NAME and `set image` after each `kubectl`, read across line breaks
    (a command in prose may wrap) up to the end of its code span, table cell
    or paragraph."""
    problems = []
    kinds_present = {kind for kind, _ in objects}
    for m in re.finditer(r"\bkubectl\b", text):
        end = re.search(r"`|\||\n\s*\n|$", text[m.end():]).start() + m.end()
        span = text[m.start():end]
        where = f"{rel}:{text.count(chr(10), 0, m.start()) + 1}"
        flat = re.sub(r"\s*\n\s*#?\s*", " ", span)
        # KIND/NAME, not a path (deploy/kubernetes/sidecar.yaml).
        for short, name in re.findall(r"(?<![\w./-])([a-z]+)/([a-z0-9][a-z0-9.-]*)(?![\w./-]*/)", flat):
            kind = KINDS.get(short)
            if kind and kind in kinds_present and (kind, name) not in objects:
                problems.append(f"{where}: {short}/{name}: deploy/kubernetes/ has no {kind} named {name}")
        for deployment, container in re.findall(r"kubectl set image (?:deployment|deploy)/([\w.-]+) ([\w.-]+)=", flat):
            if deployment in containers and container not in containers[deployment]:
                problems.append(f"{where}: the Deployment {deployment} has no container {container}"
                                f" (it has {', '.join(sorted(containers[deployment]))})")
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    objects, containers, services, project = shipped(root)
    problems = check(root, objects, containers, services, project)
    for p in problems:
        print(f"names: FAIL: {p}")
    if problems:
        print(f"names: {len(problems)} example(s) name what the shipped files do not define")
        sys.exit(1)
    print(f"names: every example names what ships ({len(objects)} Kubernetes objects, "
          f"{len(services)} compose services, project {project})")


if __name__ == "__main__":
    main()
