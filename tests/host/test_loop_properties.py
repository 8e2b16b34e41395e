"""The one table loop under any sequence of button presses and settled reads, for every game:
nothing but a clear "Not allowed" ever comes of a press, the state is always the fold of
the stored events, the stack of questions stays well formed, and a secret (Secret Pig's
lucky faces) never reaches a public screen before the end."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host import games
from host.interactions import Notice
from host.loop import TableLoop
from host.presenters import RecordingPresenter
from host.session_store import SessionStore
from rules import get_game
from rules.core import fold
from tests.games import secret_pig_table
from vision.roll import Die, Roll

games.add_module(secret_pig_table)

SETUPS = {
    "jingle-bell-roll": {"players": ["Ann", "Ben"], "characters": {"Ann": "Frosty"}},
    "christmas-romance": {"mode": "solo"},
    "christmas-romance-coop": {"mode": "coop", "players": ["Ann", "Ben"]},
    "secret-pig": {"players": ["Ann", "Ben"], "target": 10},
}
BUTTONS = ("push", "score", "undo", "next", "left", "right")

action = st.one_of(
    st.tuples(st.just("play"), st.integers(0, 2 ** 16), st.floats(0.3, 1.0)),
    st.tuples(st.just("play"), st.integers(0, 2 ** 16), st.floats(0.3, 1.0)),
    st.sampled_from(BUTTONS),
    st.tuples(st.just("read"), st.integers(0, 9), st.integers(0, 2 ** 16), st.floats(0.2, 1.0)),
    st.tuples(st.just("wanted"), st.integers(0, 2 ** 16), st.floats(0.2, 1.0)),
    st.tuples(st.just("secret"), st.integers(0, 10)),
)


def roll_of(faces, confidence):
    return Roll(dice=tuple(Die(face, confidence, 30.0 * i, 20.0, 20.0, 20.0) for i, face in enumerate(faces)),
                dice_set="")


def play_on(loop, names, seed, confidence) -> None:
    """What a player at the table would do next: answer a check, make a secret choice on
    their own device, choose on an open menu, throw the dice the game wants, else push."""
    game = loop.game
    hidden = [e for e in game.legal_events(loop.state) if game.event_view(e, None) != e]
    wanted = loop.dice_wanted()
    if loop.pending is not None:
        loop.handle("next" if seed % 3 else "score")
    elif hidden and seed % 4:
        loop.choose_privately(hidden[seed % len(hidden)])
    elif loop.menu is not None:
        for _ in range(seed % len(loop.menu.items)):
            loop.handle("right")
        loop.handle("push")
    elif wanted.count:
        faces = list(wanted.keep) + faces_from(names, wanted.count, seed)
        loop.on_read(roll_of(faces, confidence))
    else:
        loop.handle(("push", "score", "next")[seed % 3])


def faces_from(names, count, seed):
    return [names[(seed >> (2 * i)) % len(names)] for i in range(count)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(sorted(SETUPS)), actions=st.lists(action, min_size=30, max_size=90))
def test_any_presses_and_reads_keep_the_table_sound(tmp_path_factory, kind, actions):
    name = kind.removesuffix("-coop")
    game = get_game(name)
    with SessionStore(tmp_path_factory.mktemp("s") / "s.db") as store:
        table = store.create(game, SETUPS[kind])
        screen = RecordingPresenter()
        loop = TableLoop(table, presenters=[screen], new_seed=lambda: 7)
        loop.start()
        names = list(loop.plays.face_names())
        secrets = []
        for step in actions:
            if isinstance(step, str):
                loop.handle(step)
            elif step[0] == "play":
                play_on(loop, names, step[1], step[2])
            elif step[0] == "read":
                loop.on_read(roll_of(faces_from(names, step[1], step[2]), step[3]))
            elif step[0] == "wanted":
                count = loop.dice_wanted().count + len(loop.dice_wanted().keep)
                loop.on_read(roll_of(faces_from(names, count, step[1]), step[2]))
            else:
                hidden = [e for e in game.legal_events(loop.state) if game.event_view(e, None) != e]
                if hidden:
                    loop.choose_privately(hidden[step[1] % len(hidden)])
            secrets = [e for e in loop.table.session.events if game.event_view(e, None) != e]
            state = loop.table.state
            assert game.to_json(state) == game.to_json(fold(game, loop.table.session.setup_options,
                                                            loop.table.session.events))
            notices = [i for i, item in enumerate(loop.stack) if isinstance(item, Notice)]
            assert len(notices) <= 1 and all(i == len(loop.stack.items) - 1 for i in notices)
        if secrets and not game.is_over(loop.table.state):
            shown = "\n".join(s.text() for s in screen.screens)
            for event in secrets:
                assert f"face {event['face']}" not in shown

