"""edgefold.Trainer: on-device training (edgefold::Trainer) from Python."""
from . import _edgefold
from ._model import Model
from ._progress import progress_for


class Trainer:
    """Trains a model compiled with train=True in its own fixed arena, as the device would.

    step(x, labels) runs one SGD step on a batch of the compiled size (compile(batch=N));
    stream_step(x) adapts BatchNorm statistics label-free on one sample; model() returns the
    adapted model as a Model for inference at the graph's batch (1 by default).
    """

    def __init__(self, model, lr=0.01, momentum=0.9, weight_decay=0.0, bn_momentum=0.1, seed=1,
                 trainable="model", stats="momentum"):
        if not isinstance(model, Model):
            raise TypeError(f"Trainer needs an edgefold.Model compiled with train=True, got {type(model).__name__}")
        self._model = model
        self._native = _edgefold._Trainer(model._native, dict(
            lr=lr, momentum=momentum, weight_decay=weight_decay, bn_momentum=bn_momentum, seed=seed,
            trainable=trainable, stats=stats))

    def step(self, x, labels):
        """One SGD step on the batch x [N, ...] with integer labels [N]: (loss, correct)."""
        return self._native.step(x, labels)

    def stream_step(self, x, **stream_options):
        """Label-free adaptation on one sample (the graph's batch, 1 unless compiled with
        infer_batch); returns the logits.
        stream_options: momentum, momentum_decay, momentum_min, prior, variance_floor, window,
        entropy_rise (edgefold::StreamOptions). last_stream has the step's entropy and resets."""
        return self._native.stream_step(x, stream_options)

    @property
    def last_stream(self):
        return self._native.last_stream()

    def model(self):
        """The adapted model (trained parameters and statistics written over the originals) as
        a Model; the Trainer goes on training unaffected."""
        return Model(self._native.model())

    def evaluate(self, x):
        """Eval-mode logits [N, classes] for a batch x [N, ...] (running statistics)."""
        return self._native.evaluate(x)

    def adapt_statistics(self, x):
        """Forward with batch statistics on x [N, ...]: updates the running statistics only."""
        self._native.adapt_statistics(x)

    def reset_statistics(self):
        """Restarts the cumulative average (stats='cumulative') before a calibration pass."""
        self._native.reset_statistics()

    def reset_stream(self):
        self._native.reset_stream()

    def refold(self):
        """Folds each BatchNorm into the op before it for evaluate(); returns how many."""
        return self._native.refold()

    def fit(self, x, labels, epochs=1, progress=None):
        """step() over x/labels in batches of batch_size (a remainder is left out), `epochs`
        times; returns [(mean loss, accuracy)] per epoch. progress: True or a callback."""
        n = self.batch_size
        batches = len(x) // n
        if batches == 0:
            raise ValueError(f"fit: {len(x)} samples are fewer than one batch of {n}")
        history = []
        bar = progress_for(progress, epochs * batches, "train")
        try:
            for epoch in range(epochs):
                loss_sum, correct = 0.0, 0
                for b in range(batches):
                    loss, hits = self.step(x[b * n:(b + 1) * n], labels[b * n:(b + 1) * n])
                    loss_sum, correct = loss_sum + loss, correct + hits
                    bar.update(1, epoch=epoch + 1, loss=loss)
                history.append((loss_sum / batches, correct / (batches * n)))
        finally:
            bar.close()
        return history

    def adapt(self, x, progress=None):
        """adapt_statistics() over x in batches of batch_size: BatchNorm calibration from
        unlabeled data. Returns the number of batches."""
        n = self.batch_size
        batches = len(x) // n
        bar = progress_for(progress, batches, "adapt")
        try:
            for b in range(batches):
                self.adapt_statistics(x[b * n:(b + 1) * n])
                bar.update(1)
        finally:
            bar.close()
        return batches

    def accuracy(self, x, labels):
        """Fraction of argmax hits of evaluate() over x in batches of batch_size."""
        import numpy as np
        n = self.batch_size
        batches = len(x) // n
        hits = 0
        for b in range(batches):
            logits = self.evaluate(x[b * n:(b + 1) * n])
            hits += int(np.sum(np.argmax(logits, axis=1) == np.asarray(labels[b * n:(b + 1) * n])))
        return hits / (batches * n) if batches else 0.0

    def set_options(self, **options):
        """Changes lr, momentum, weight_decay, bn_momentum or stats between steps."""
        self._native.set_options(options)

    @property
    def options(self):
        return self._native.get_options()

    @property
    def lr(self):
        return self.options["lr"]

    @lr.setter
    def lr(self, value):
        self.set_options(lr=value)

    def parameters(self):
        """{name: array} copies of the parameters and statistics held in the arena."""
        return self._native.parameters()

    @property
    def batch_size(self):
        return self._native.batch_size

    @property
    def num_classes(self):
        return self._native.num_classes

    @property
    def arena_bytes(self):
        return self._native.arena_bytes
