"""``python -m mce_kit``: see mce_kit.cli."""


from .cli import entry

if __name__ == "__main__":
    entry()
