"""Settings: the ground floor every package may import.

- :mod:`settings.fields`: :func:`~settings.fields.setting` declares a setting beside the code that
  uses it (default, help, bounds), :func:`~settings.fields.build_section` loads a section from
  ``config.toml`` and ``PAGECAST_*`` environment variables and reports every problem at once;
- :mod:`settings.render`: the commented ``config.toml`` and the Markdown reference, generated
  from the declarations.

It imports nothing of Pagecast's.
"""
