"""What the tutor says, in Chinese and English: interface strings, refusals, content problems
and fact wording. Below the TUI, so that the command line, the crash path and the app all
say things the same way without importing Textual."""
