"""The phone page: the box's own web page for the phones at the table (issue 53).

* :mod:`host.web.table`: :class:`~host.web.table.WebTable`, one more presenter of the loop's
  screens (it keeps the public snapshot, under a lock, for the server thread) and one more
  source of the loop's commands (each checked, in the loop's thread, against the sequence
  number it was made on).
* :mod:`host.web.app`: the Starlette app (pages, API, server-sent events, PIN, same-origin).
* :mod:`host.web.server`: uvicorn in a daemon thread, ``--web [HOST:]PORT``, the PIN and the
  QR code of the address.
"""
