"""The tutor's plotext plots: textual-plotext's widget, let go with the page that shows it.

textual-plotext subscribes every plot to the app's theme signal, with a callback that holds
the plot. The signal drops a subscriber only when it next publishes (a theme change), so
each plot a learner had seen stayed alive with all it drew: the training page's run, every
checkpoint's matrix, neighbours and map, through the rest of the course
(docs/performance.md). A plot unsubscribes when it leaves the screen.
"""

from __future__ import annotations

from textual_plotext import PlotextPlot


class Plot(PlotextPlot):
    def on_unmount(self) -> None:
        self.app.theme_changed_signal.unsubscribe(self)
