"""Many tables on one MQTT broker: each box publishes its table, a league follows them all.

The wire, in one place (``PREFIX`` from the broker URL, ``BOX`` the box's name from
``[box] name``, ``SESSION`` the stored session's id; a table is ``BOX/SESSION``):

=====================================  ======  ========  ==========================================
topic                                  QoS     retained  payload (JSON)
=====================================  ======  ========  ==========================================
``PREFIX/tables/BOX/SESSION/events``   1       no        one journal entry: ``table``, ``box``,
                                                         ``session``, ``game``, ``seq``, ``prev``,
                                                         ``at``, ``kind`` (``event`` or ``undo``),
                                                         ``event`` (its public view) or ``undoes``,
                                                         ``standing`` after it
``PREFIX/tables/BOX/SESSION/state``    1       yes       ``/api/state``'s ``game``, ``title``,
                                                         ``status``, ``over``, ``state``, with
                                                         ``table``, ``seq``, ``last`` and ``standing``
``PREFIX/tables/BOX/online``           1       yes       ``{"box", "online"}`` (the last will: false)
``PREFIX/resend/BOX``                  1       no        the league asks: ``{"session", "after"}``
=====================================  ======  ========  ==========================================

Everything on the wire is public: events through the game's ``event_view(event, None)``, the
state through ``view_of(state, None)``; notes (the box's own bookkeeping) are not sent.
:mod:`host.mqtt.messages` builds and checks these payloads, :mod:`host.mqtt.publisher` sends
them from a box, :mod:`host.league` receives them.
"""
