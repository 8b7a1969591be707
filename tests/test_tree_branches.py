"""Devices under a tree branch, as alerts and maintenance windows use them."""

import pytest

from monitor.alerts.scopes import branches_supported, devices_under_branch
from monitor.graphs.trees.models import Tree, TreeNode
from monitor.models import Device

pytestmark = pytest.mark.django_db


def test_devices_under_a_branch_include_nested_headers_only():
    a, b, c = (Device.objects.create(name=n, host="127.0.0.1") for n in ("a", "b", "c"))
    tree = Tree.objects.create(name="Site")
    top = TreeNode.objects.create(tree=tree, kind="header", title="Core")
    inner = TreeNode.objects.create(tree=tree, kind="header", title="Storage", parent=top)
    TreeNode.objects.create(tree=tree, kind="device", device=a, parent=top)
    TreeNode.objects.create(tree=tree, kind="device", device=b, parent=inner)
    other = TreeNode.objects.create(tree=tree, kind="header", title="Edge")
    TreeNode.objects.create(tree=tree, kind="device", device=c, parent=other)
    assert branches_supported()
    assert devices_under_branch(str(top.pk)) == {a.pk, b.pk}
    assert devices_under_branch(str(inner.pk)) == {b.pk}
    assert devices_under_branch("not-a-number") == set()
