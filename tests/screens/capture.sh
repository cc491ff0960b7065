#!/usr/bin/env bash
# Capture what a real program shows in a tmux pane, as a fixture: how tests/screens/*.txt were made.
#   capture.sh SESSION NAME EXPECTED_STATE   -> NAME.txt
# Start the program first on the private tmux server `-L agentcap` at a fixed size, e.g.
#   tmux -L agentcap new-session -d -s codex -x 120 -y 40 "HOME=\$(mktemp -d) codex"
# The file is a header (size, title, cursor row col visibility, alternate screen, the state the
# rules must give), a line "---", then the pane's rows with their colours (capture-pane -e),
# blank rows at the bottom left out. tmux shows the host name as the title of a pane whose
# program set none; that is written as an empty title.
set -euo pipefail
session=$1 name=$2 expect=$3
dir=$(cd "$(dirname "$0")" && pwd)
meta=$(tmux -L agentcap display -p -t "$session" \
  '#{pane_width}x#{pane_height}	#{pane_title}	#{cursor_y}	#{cursor_x}	#{cursor_flag}	#{alternate_on}')
tmux -L agentcap capture-pane -p -e -t "$session" | python3 -c '
import re, socket, sys
size, title, y, x, visible, alt = sys.argv[1].split("\t")
rows = sys.stdin.read().split("\n")
while rows and not re.sub(r"\x1b\[[0-9;:]*m", "", rows[-1]).strip():
    rows.pop()
title = "" if title == socket.gethostname() else title
cursor = "visible" if visible == "1" else "hidden"
print(f"size: {size}\ntitle: {title}\ncursor: {y} {x} {cursor}")
alt = "yes" if alt == "1" else "no"
print(f"alt_screen: {alt}\nexpect: {sys.argv[2]}\n---")
print("\n".join(rows))
' "$meta" "$expect" > "$dir/$name.txt"
